package compaction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
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

// Pipeline is a Compactor that tries several compactors in order, each on the
// previous one's output, and stops as soon as the conversation fits the
// target. It lets one CompactionHook run a cheap pass first and an expensive
// one only when needed, e.g. tool result pruning, then summarization.
//
// It returns (nil, nil) when no stage changed anything. A stage's error stops
// the pipeline and is returned wrapped with the stage's position; the work of
// earlier stages is then discarded, as the caller's messages never changed.
// Pipeline implements hooks.WarmUpper and hooks.Closer by delegating to the
// stages that implement them. It keeps no per-run state. Its stages' ctx
// carries the conversation it was given, so a cache-aligned
// SummarizationCompactor after a ToolResultPruningCompactor still sends the
// agent's request as it was sent, which the provider has cached.
type Pipeline struct {
	stages []Compactor
}

var (
	_ Compactor       = (*Pipeline)(nil)
	_ hooks.WarmUpper = (*Pipeline)(nil)
	_ hooks.Closer    = (*Pipeline)(nil)
)

// NewPipeline returns a pipeline of the given compactors, tried in order. It
// needs at least one stage, and no nil stage.
func NewPipeline(stages ...Compactor) (*Pipeline, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("compaction: NewPipeline needs at least one compactor, got 0")
	}
	for i, s := range stages {
		if s == nil {
			return nil, fmt.Errorf("compaction: NewPipeline stage %d is nil", i)
		}
	}
	return &Pipeline{stages: append([]Compactor(nil), stages...)}, nil
}

// Stages returns the pipeline's compactors in order.
func (p *Pipeline) Stages() []Compactor { return append([]Compactor(nil), p.stages...) }

// Compact implements Compactor.
func (p *Pipeline) Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error) {
	if counter == nil {
		counter = DefaultCounter()
	}
	// Later stages see what earlier ones made of the conversation; a
	// cache-aligned summarizer among them needs it as the agent sent it.
	ctx = request.WithSent(ctx, messages)
	current, changed := messages, false
	for i, stage := range p.stages {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("compaction: pipeline: %w", err)
		}
		size, err := counter.Count(ctx, current, nil)
		if err != nil {
			return nil, fmt.Errorf("compaction: pipeline: counting: %w", err)
		}
		if size <= targetTokens {
			break
		}
		sctx := ctx
		if summarizes(p.stages[i+1:]...) {
			sctx = context.WithValue(sctx, summarizedAfterKey{}, true)
		}
		if changed {
			sctx = context.WithValue(sctx, earlierStageChangedKey{}, true)
		}
		out, err := stage.Compact(sctx, current, targetTokens, counter)
		if err != nil {
			return nil, fmt.Errorf("compaction: pipeline stage %d (%T): %w", i, stage, err)
		}
		if out != nil {
			current, changed = out, true
		}
	}
	// A stage may decline instead of reporting that ctx ended; the earlier
	// stages' work must not come back as if the run were still going.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compaction: pipeline: %w", err)
	}
	if !changed {
		return nil, nil
	}
	return current, nil
}

// earlierStageChangedKey marks the ctx of a Pipeline stage that follows a
// stage which changed the conversation (earlierStageChanged).
type earlierStageChangedKey struct{}

// earlierStageChanged reports whether an earlier stage of a Pipeline has
// already changed the conversation the compactor ctx is handed to works on,
// so that a stage which finds nothing to do is routine, not a fault.
func earlierStageChanged(ctx context.Context) bool {
	v, _ := ctx.Value(earlierStageChangedKey{}).(bool)
	return v
}

// summarizedAfterKey marks the ctx of a Pipeline stage that a
// summarization stage follows (summarizedAfter).
type summarizedAfterKey struct{}

// summarizedAfter reports whether a summarization stage of a Pipeline
// follows the compactor ctx is handed to: a ToolResultPruningCompactor
// leaves a deep compaction's floor alone only then, since that stage
// summarizes what lies before the floor. On its own, a pruner that left
// the floor alone stopped short of the target
// (TestDeepCompactionLonePrunerAimsAtTheTarget).
func summarizedAfter(ctx context.Context) bool {
	v, _ := ctx.Value(summarizedAfterKey{}).(bool)
	return v
}

// summarizes reports whether one of stages is a SummarizationCompactor,
// also within a nested Pipeline.
func summarizes(stages ...Compactor) bool {
	for _, s := range stages {
		switch s := s.(type) {
		case *SummarizationCompactor:
			return true
		case *Pipeline:
			if summarizes(s.stages...) {
				return true
			}
		}
	}
	return false
}

// WarmUp warms every stage that implements hooks.WarmUpper, in order,
// stopping at the first error.
func (p *Pipeline) WarmUp(ctx context.Context) error {
	for i, s := range p.stages {
		if w, ok := s.(hooks.WarmUpper); ok {
			if err := w.WarmUp(ctx); err != nil {
				return fmt.Errorf("compaction: pipeline stage %d warm up: %w", i, err)
			}
		}
	}
	return nil
}

// Close closes every stage that implements hooks.Closer; all are attempted
// and their errors joined.
func (p *Pipeline) Close(ctx context.Context) error {
	var errs []error
	for i, s := range p.stages {
		if c, ok := s.(hooks.Closer); ok {
			if err := c.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("compaction: pipeline stage %d close: %w", i, err))
			}
		}
	}
	return errors.Join(errs...)
}

var _ Identifier = (*Pipeline)(nil)

// CompactionIdentity implements Identifier: the identities of its stages in
// order, or "" when a stage has none (a hook then refuses the Store).
func (p *Pipeline) CompactionIdentity() string {
	parts := make([]string, len(p.stages))
	for i, s := range p.stages {
		id, ok := s.(Identifier)
		if !ok || id.CompactionIdentity() == "" {
			return ""
		}
		parts[i] = "[" + id.CompactionIdentity() + "]"
	}
	return "pipeline/1 " + strings.Join(parts, " ")
}
