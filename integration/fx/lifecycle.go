package compactfx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
)

// registerLifecycle ties the registry to the application: OnStart warms every
// hook up, OnStop closes them.
func registerLifecycle(lc fx.Lifecycle, reg *hooks.Registry, in loggerIn) {
	log := orDefault(in.Logger)
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			return bounded(ctx, log, "warm up", reg.WarmUp)
		},
		OnStop: func(ctx context.Context) error {
			return bounded(ctx, log, "close", reg.Close)
		},
	})
}

// bounded runs f and returns when it does or when ctx is done, whichever
// comes first. fx gives lifecycle hooks a context with a deadline
// (fx.StartTimeout, fx.StopTimeout); a hook that ignores its context must
// still not hold the application past it. Such a hook is left running in
// the background, and the returned error says so.
func bounded(ctx context.Context, log *slog.Logger, what string, f func(context.Context) error) error {
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("%w: %v", hooks.ErrHookPanic, p)
			}
		}()
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		var warm *warmUpError
		if errors.As(err, &warm) {
			return &reworded{msg: "compactfx: " + warm.Error(), err: err}
		}
		if err != nil {
			return fmt.Errorf("compactfx: %s: %w", what, err)
		}
		log.DebugContext(ctx, "hooks "+what+" done", "took", time.Since(start))
		return nil
	case <-ctx.Done():
		return fmt.Errorf("compactfx: %s did not finish within the lifecycle deadline: %w", what, context.Cause(ctx))
	}
}

// reworded is err told in fewer words: its message is msg, and errors.Is
// and errors.As still see every error in err's chain.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }
