package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
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

// applySummary swaps the summary in for plan and checks that the result is
// smaller than before tokens. It returns the new conversation and its size.
func applySummary(ctx context.Context, messages []*schema.Message, plan Plan, text string, fields map[string]any, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	return applyBuilt(ctx, messages, plan, summarytext.New(text, len(plan.Indices), fields), before, counter)
}

// applyBuilt is applySummary for a summary message already built by
// summarytext.New, so a caller that needs the message too (the round measures
// it to learn summary sizes) builds it once: it copies the whole summary.
func applyBuilt(ctx context.Context, messages []*schema.Message, plan Plan, summary *schema.Message, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	next := planning.Splice(messages, plan.Indices, summary)
	after, err := counter.Count(ctx, next, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("compaction: counting the summarized conversation: %w", err)
	}
	if after >= before {
		return nil, after, fmt.Errorf("%w (%d tokens before and %d tokens after)", ErrSummaryNotSmaller, before, after)
	}
	return next, after, nil
}
