package compactfx

import (
	"context"
	"log/slog"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// RoundObserver receives every summarization round of the compactor Module
// builds. It is called synchronously on the goroutine running the agent, so
// it must return quickly.
type RoundObserver func(ctx context.Context, r compaction.Round)

type observerKey struct{}

// WithRoundObserver returns a context under which the module's compactor
// reports each summarization round to obs. Pass it to the agent's Run to
// observe that one run: the compactor is shared by every run, so per-run
// reporting travels in the context rather than in the compactor.
func WithRoundObserver(ctx context.Context, obs RoundObserver) context.Context {
	return context.WithValue(ctx, observerKey{}, obs)
}

// roundReporter logs every round and forwards it to the observer in ctx.
func roundReporter(log *slog.Logger) RoundObserver {
	return func(ctx context.Context, r compaction.Round) {
		attrs := []any{"tier", r.Tier, "messages_replaced", len(r.Indices), "tokens_before", r.TokensBefore,
			"tokens_after", r.TokensAfter, "summarizer_latency", r.Latency}
		if r.Err != nil {
			log.WarnContext(ctx, "summarization round failed", append(attrs, "error", r.Err)...)
		} else {
			log.DebugContext(ctx, "summarization round", attrs...)
		}
		if obs, ok := ctx.Value(observerKey{}).(RoundObserver); ok && obs != nil {
			obs(ctx, r)
		}
	}
}
