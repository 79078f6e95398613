package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// slowWarmHook's warm-up blocks until release is closed (it ignores ctx, as
// a slow dependency might), and reports that it started.
type slowWarmHook struct {
	started chan struct{}
	release chan struct{}
}

func (h *slowWarmHook) Run(context.Context, *hooks.State) error { return nil }

func (h *slowWarmHook) WarmUp(context.Context) error {
	close(h.started)
	<-h.release
	return nil
}

// TestWarmUpWaitHonoursDeadline: while one run's warm-up is slow, another
// run with a 100 ms deadline returns at that deadline with an error wrapping
// context.DeadlineExceeded instead of queueing behind the warm-up; once the
// warm-up finishes, runs go ahead without warming again.
func TestWarmUpWaitHonoursDeadline(t *testing.T) {
	t.Parallel()
	h := &slowWarmHook{started: make(chan struct{}), release: make(chan struct{})}
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, h)
	a, _ := newConversationalAgent(t, Config{Hooks: reg})
	in := []*schema.Message{schema.UserMessage("q")}

	first := make(chan error, 1)
	go func() {
		_, err := a.Run(context.Background(), in)
		first <- err
	}()
	<-h.started

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() {
		_, err := a.Run(ctx, in)
		second <- err
	}()
	// The bound is a watchdog, not a measurement: without it a waiting run
	// that ignores its deadline would hang the test until the warm-up ends.
	select {
	case err := <-second:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiting run returned %v, want an error wrapping context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		close(h.release)
		t.Fatal("a run with a 100 ms deadline was still waiting for another run's warm-up after 10 s")
	}
	close(h.release)
	if err := <-first; err != nil {
		t.Fatalf("the warming run: %v", err)
	}
	if _, err := a.Run(context.Background(), in); err != nil {
		t.Fatalf("a run after the warm-up: %v", err)
	}
}

// failingWarmHook's warm-up fails.
type failingWarmHook struct{}

func (failingWarmHook) Run(context.Context, *hooks.State) error { return nil }
func (failingWarmHook) WarmUp(context.Context) error            { return errors.New("tokenizer unavailable") }

// TestWarmUpErrorIsSaidOnce: Run and Stream return a failed warm-up's error
// with the package's prefix once, and errors.Is still finds the cause.
func TestWarmUpErrorIsSaidOnce(t *testing.T) {
	t.Parallel()
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, failingWarmHook{})
	a, _ := newConversationalAgent(t, Config{Hooks: reg})
	in := []*schema.Message{schema.UserMessage("q")}
	_, runErr := a.Run(context.Background(), in)
	_, streamErr := a.Stream(context.Background(), in)
	for name, err := range map[string]error{"Run": runErr, "Stream": streamErr} {
		if err == nil {
			t.Fatalf("%s: no error from a failing warm-up", name)
		}
		if msg := err.Error(); strings.Count(msg, "agent:") != 1 || !strings.Contains(msg, "warm up") || !strings.Contains(msg, "tokenizer unavailable") {
			t.Errorf("%s: error %q, want one \"agent:\" prefix, the step and the cause", name, msg)
		}
	}
}
