package compactfx

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks"
)

// onceSlowHook's warm-up blocks until release is closed and counts its runs.
type onceSlowHook struct {
	started, release chan struct{}
	runs             int
}

func (h *onceSlowHook) Run(context.Context, *hooks.State) error { return nil }

func (h *onceSlowHook) WarmUp(context.Context) error {
	h.runs++
	close(h.started)
	<-h.release
	return nil
}

// TestOnceHookWaitHonoursCtx: the module warms hooks at start and every
// agent on the registry warms them on its first run; a run with a deadline
// must not queue past it behind another caller's slow warm-up.
func TestOnceHookWaitHonoursCtx(t *testing.T) {
	t.Parallel()
	inner := &onceSlowHook{started: make(chan struct{}), release: make(chan struct{})}
	o := &onceHook{Hook: inner}
	first := make(chan error, 1)
	go func() { first <- o.WarmUp(context.Background()) }()
	<-inner.started

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() { second <- o.WarmUp(ctx) }()
	// A watchdog, not a measurement: it keeps a regression from hanging.
	select {
	case err := <-second:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiting WarmUp returned %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		close(inner.release)
		t.Fatal("a WarmUp with a 100 ms deadline was still waiting after 10 s")
	}
	close(inner.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := o.WarmUp(context.Background()); err != nil || inner.runs != 1 {
		t.Errorf("after success: %v, %d warm-ups, want nil and 1", err, inner.runs)
	}
}
