package compaction

import (
	"context"
	"errors"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// Compactor shrinks a conversation towards a token target.
//
// Compact returns the compacted conversation, or (nil, nil) when it can do
// nothing useful: the conversation already fits, or only what it must keep is
// left. It never mutates messages or the messages they point to; a returned
// slice is new, and may share unchanged *schema.Message values with the input.
// counter measures sizes; implementations must use it rather than their own
// idea of a token so that the caller's target means what it says.
//
// A Compactor may serve many agent runs at once, so it keeps no per-run state.
type Compactor interface {
	Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error)
}

// CompactorFunc adapts an ordinary function to Compactor.
type CompactorFunc func(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error)

// Compact calls f.
func (f CompactorFunc) Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error) {
	return f(ctx, messages, targetTokens, counter)
}

var (
	// ErrNoUsableSummary means the chat model's reply had no text to use as a summary.
	ErrNoUsableSummary = summarytext.ErrNoUsable
	// ErrSummaryNotSmaller means swapping the summary in did not make the conversation smaller.
	ErrSummaryNotSmaller = errors.New("compaction: the summary did not reduce the conversation")
	// ErrBrokenToolPairing means a compactor returned a conversation in which
	// a tool call lost its results or a result its call. CompactionHook
	// refuses such a result and keeps the conversation as it was.
	ErrBrokenToolPairing = shape.ErrBrokenPairing
)
