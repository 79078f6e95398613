package eval

import (
	"context"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// cutAtMaxTokens makes a summarizer honour model.WithMaxTokens the way a
// provider does: a reply longer than the cap is cut where the cap is
// reached, mid-sentence if need be, with finish reason "length". The
// extractive model ignores options, so without this the corpus would not
// show what the compactor's output cap does to fidelity. Tokens are the
// default counter's, the ones the compactor plans the cap in.
type cutAtMaxTokens struct {
	model.BaseChatModel
	counter compaction.TokenCounter
}

func (c cutAtMaxTokens) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	reply, err := c.BaseChatModel.Generate(ctx, input, opts...)
	if err != nil || reply == nil {
		return reply, err
	}
	limit := model.GetCommonOptions(nil, opts...).MaxTokens
	if limit == nil || *limit <= 0 {
		return reply, nil
	}
	size := func(text string) (int, error) {
		return c.counter.Count(ctx, []*schema.Message{schema.AssistantMessage(text, nil)}, nil)
	}
	n, err := size(reply.Content)
	if err != nil || n <= *limit {
		return reply, err
	}
	runes := []rune(reply.Content)
	// The longest prefix within the cap, by bisection on its length.
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		m, err := size(string(runes[:mid]))
		if err != nil {
			return nil, err
		}
		if m <= *limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := *reply
	cut.Content = string(runes[:lo])
	if reply.ResponseMeta != nil {
		meta := *reply.ResponseMeta
		meta.FinishReason = "length"
		cut.ResponseMeta = &meta
	}
	return &cut, nil
}
