package compactfx

import (
	"context"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// ObserverGroup is the fx value group of compaction.Observer values the
// module's CompactionHook reports to. Contribute one with
//
//	fx.Provide(fx.Annotate(newMetrics, fx.As(new(compaction.Observer)), fx.ResultTags(`group:"einocompact.observers"`)))
const ObserverGroup = "einocompact.observers"

type observerKey struct{}

// WithObserver returns a context under which the module's CompactionHook
// also reports to obs. Pass it to the agent's Run to observe that one run:
// the hook is shared by every run, so per-run reporting travels in the
// context rather than in the hook.
func WithObserver(ctx context.Context, obs compaction.Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, obs)
}

// dispatch reports to the application-wide observers, then to the run's own.
type dispatch struct {
	static []compaction.Observer
}

// ObserveCompaction implements compaction.Observer.
func (d dispatch) ObserveCompaction(ctx context.Context, r compaction.Report) {
	for _, o := range d.static {
		if o != nil {
			o.ObserveCompaction(ctx, r)
		}
	}
	if o, ok := ctx.Value(observerKey{}).(compaction.Observer); ok && o != nil {
		o.ObserveCompaction(ctx, r)
	}
}
