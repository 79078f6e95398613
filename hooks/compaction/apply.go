package compaction

import (
	"context"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// NewSummaryMessage builds the message that stands for n replaced messages:
// a user message "<conversation_summary>\nTEXT\n</conversation_summary>"
// carrying the summarization marker. Summary tags inside TEXT are escaped
// ("&lt;/conversation_summary&gt;"), as in the compactor's own summaries.
// When TEXT quotes tool output marked as data («…», see the identifier
// ledger) and does not say so already, a line saying what the marks mean
// comes first, so the model reading the summary knows them.
func NewSummaryMessage(text string, n int) *schema.Message {
	return summarytext.New(text, n, nil)
}

// replaceWithSummary returns a new conversation in which the messages at indices are
// gone and summary sits where the first of them was, or, when they lie on
// both sides of the current request, where the first of them after it was:
// a summary of earlier turns and of steps taken for the request follows the
// request, which keeps its place. Everything else keeps its order. messages
// itself is not touched.
func replaceWithSummary(messages []*schema.Message, indices []int, summary *schema.Message) []*schema.Message {
	from := 0
	if task := shape.RegionsOf(messages).Task; task >= 0 && len(indices) > 0 && slices.Min(indices) < task && slices.Max(indices) > task {
		from = task + 1
	}
	drop := make([]bool, len(messages))
	first, atFrom := len(messages), len(messages)
	for _, i := range indices {
		drop[i] = true
		first = min(first, i)
		if i >= from {
			atFrom = min(atFrom, i)
		}
	}
	if atFrom < len(messages) {
		first = atFrom
	}
	out := make([]*schema.Message, 0, len(messages)-len(indices)+1)
	for i, m := range messages {
		if i == first {
			out = append(out, summary)
		}
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}

// applySummary swaps the summary in for plan and checks that the result is
// smaller than before tokens. It returns the new conversation and its size.
func applySummary(ctx context.Context, messages []*schema.Message, plan Plan, text string, fields map[string]any, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	return applyBuilt(ctx, messages, plan, summarytext.New(text, len(plan.Indices), fields), before, counter)
}

// applyBuilt is applySummary for a summary message already built by
// summarytext.New, so a caller that needs the message too (the round measures
// it to learn summary sizes) builds it once: it copies the whole summary.
func applyBuilt(ctx context.Context, messages []*schema.Message, plan Plan, summary *schema.Message, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	next := replaceWithSummary(messages, plan.Indices, summary)
	after, err := counter.Count(ctx, next, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("compaction: counting the summarized conversation: %w", err)
	}
	if after >= before {
		return nil, after, fmt.Errorf("%w (%d tokens before and %d tokens after)", ErrSummaryNotSmaller, before, after)
	}
	return next, after, nil
}
