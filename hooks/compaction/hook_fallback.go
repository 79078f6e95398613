package compaction

import (
	"context"
	"slices"
	"strings"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// fallbackStage is one model-free compactor the hook falls back on, with
// the name Report.Fallback gives it.
type fallbackStage struct {
	name      string
	compactor Compactor
}

// newFallback returns the default fallback: tool-result pruning, which
// keeps every message and loses only old tool output, then the sliding
// window, which forgets whole old turns and steps. Neither calls a model.
func newFallback(ctx context.Context) ([]fallbackStage, error) {
	prune, err := NewToolResultPruningCompactor(ctx, nil)
	if err != nil {
		return nil, err
	}
	slide, err := NewSlidingWindowCompactor(ctx, nil)
	if err != nil {
		return nil, err
	}
	return []fallbackStage{{StrategyToolResultPruning, prune}, {StrategySlidingWindow, slide}}, nil
}

// fallBack runs when a triggered compaction left the coming call estimated
// above the fallback line, ContextWindow less FallbackMargin, whatever the
// compactor said: it failed without failing the run (r.Err set, Decide
// returning no error: a dead summarizer with RaiseOnFailure false, a result
// not smaller), declined (a SummarizationCompactor whose learned summary
// size says a summary cannot help), or shrank the conversation too little.
// The provider would reject such a call with a context-length error, or
// might: the estimate counts the newest messages itself. It compacts
// towards the usual target with the model-free stages in order, each on the
// previous one's output, stopping once the target is reached, and applies
// the result as any compaction. r.Fallback names the stages that changed
// something; r.Err keeps the cause, if any.
func (h *CompactionHook) fallBack(ctx context.Context, state *hooks.State, r *Report) {
	if len(h.fallback) == 0 || ctx.Err() != nil {
		return
	}
	est := r.Estimated
	if r.Compacted {
		est = r.TokensAfter + r.Overhead
	}
	if float64(est) <= h.limit() {
		return
	}
	snapshot := slices.Clone(state.Messages)
	current, size := snapshot, r.TokensAfter
	var used []string
	for _, st := range h.fallback {
		out, err := st.compactor.Compact(ctx, current, r.Target, h.counter)
		if err != nil {
			h.log.WarnContext(ctx, "compaction fallback failed", "step", r.BeforeStep(), "fallback", st.name, "error", err.Error())
			break
		}
		if out == nil {
			continue
		}
		if size, err = h.counter.Count(ctx, out, nil); err != nil {
			h.log.WarnContext(ctx, "compaction fallback failed: counting its result", "step", r.BeforeStep(), "error", err.Error())
			return
		}
		current, used = out, append(used, st.name)
		if size <= r.Target {
			break
		}
	}
	if len(used) == 0 || shape.NewFaults(snapshot, current) != nil {
		h.log.WarnContext(ctx, "compaction fallback found nothing it may remove", "step", r.BeforeStep(), "estimated_tokens", est, "window_tokens", h.window)
		return
	}
	// Set before apply, whose "compaction applied" record names it; apply
	// must not replace the cause either (it sets Err only for a result
	// that is not smaller).
	cause, compacted := r.Err, r.Compacted
	r.Fallback, r.Compacted = strings.Join(used, "+"), false
	err := h.apply(ctx, state, snapshot, current, r.TokensAfter, size, r)
	applied := err == nil && r.Compacted
	r.Err, r.Compacted = cause, compacted || applied
	if !applied {
		r.Fallback = ""
		return
	}
	why := "the compaction left the coming call estimated above the context window less the fallback margin"
	if !compacted {
		why = "nothing was compacted and the coming call was estimated above the context window less the fallback margin"
	}
	attrs := []any{"step", r.BeforeStep(), "fallback", r.Fallback, "estimated_tokens", est, "window_tokens", h.window,
		"limit_tokens", int(h.limit()), "tokens_after", r.TokensAfter}
	if cause != nil {
		why = "the compaction failed and the coming call was estimated above the context window less the fallback margin"
		attrs = append(attrs, "cause", cause.Error())
	}
	h.log.WarnContext(ctx, "compaction fell back to a model-free compaction: "+why, attrs...)
}
