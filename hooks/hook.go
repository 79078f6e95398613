package hooks

import "context"

// Hook is code run at a hook point. Run may change state in place; a returned
// error aborts the run.
type Hook interface {
	Run(ctx context.Context, state *State) error
}

// Func adapts an ordinary function to Hook.
type Func func(ctx context.Context, state *State) error

// Run calls f(ctx, state).
func (f Func) Run(ctx context.Context, state *State) error { return f(ctx, state) }

// PointLimiter is implemented by hooks that only make sense at some points.
// Registry.Register refuses any other point.
type PointLimiter interface {
	AllowedPoints() []Point
}

// WarmUpper is implemented by hooks (and the parts they own) that have
// expensive setup best done before the first run, such as loading a tokenizer.
type WarmUpper interface {
	WarmUp(ctx context.Context) error
}

// Closer is implemented by hooks that hold resources to release when the
// application stops.
type Closer interface {
	Close(ctx context.Context) error
}
