package compactfx

import (
	"context"
	"sync"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/internal/ctxonce"
)

// onceHook makes a hook's WarmUp and Close idempotent. The module warms the
// registry at OnStart, and agent.Agent warms the registry it is given on its
// first run too; without this guard every hook (and the summarizer behind
// the compaction hook, with its warm-up request) would warm up twice.
// A failed WarmUp is not remembered, so a later call retries. A caller
// waiting for another's warm-up stops waiting when its ctx ends.
type onceHook struct {
	hooks.Hook
	warm   ctxonce.Once
	mu     sync.Mutex
	closed bool
}

// Unwrap returns the hook as it was contributed.
func (o *onceHook) Unwrap() hooks.Hook { return o.Hook }

// Name reports the wrapped hook's name so errors and logs stay readable.
func (o *onceHook) Name() string { return hooks.HookName(o.Hook) }

// AllowedPoints forwards the wrapped hook's limits, if it has any.
func (o *onceHook) AllowedPoints() []hooks.Point {
	if pl, ok := o.Hook.(hooks.PointLimiter); ok {
		return pl.AllowedPoints()
	}
	return hooks.Points()
}

// WarmUp warms the wrapped hook up the first time it succeeds.
func (o *onceHook) WarmUp(ctx context.Context) error {
	w, ok := o.Hook.(hooks.WarmUpper)
	if !ok {
		return nil
	}
	return o.warm.Do(ctx, w.WarmUp)
}

// Close closes the wrapped hook once.
func (o *onceHook) Close(ctx context.Context) error {
	c, ok := o.Hook.(hooks.Closer)
	if !ok {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	return c.Close(ctx)
}
