package compaction

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestHookKeepsItsConfigsCallbacks: a hook calls the Observer and the
// OnPrepared its HookConfig held when NewCompactionHook returned, also for
// the reports its machinery sends itself (a backed-off call); a caller that
// then sets other callbacks in the same HookConfig, to build a second hook
// from it, does not redirect the first hook's.
func TestHookKeepsItsConfigsCallbacks(t *testing.T) {
	t.Parallel()
	t.Run("Observer of a backed-off call", func(t *testing.T) {
		t.Parallel()
		failing := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
			return nil, errors.New("summarizer down")
		})
		var first, second atomic.Int32
		cfg := &HookConfig{Compactor: failing, ContextWindow: 1000, TokenCounter: fc1, Logger: discardLogger(),
			Observer: ObserverFunc(func(context.Context, Report) { first.Add(1) })}
		h, err := NewCompactionHook(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Observer = ObserverFunc(func(context.Context, Report) { second.Add(1) })
		msgs := []*schema.Message{user("task")}
		for step, size := range []int{720, 730} { // trigger 700: a failed compaction, then a call it holds back
			pad := size - count(fc1, msgs...) - 1 - len("[user] ")
			msgs = append(msgs[:len(msgs):len(msgs)], user(rep("x", pad)))
			r, _ := h.Decide(context.Background(), &hooks.State{Messages: msgs, StepCount: step})
			if step == 1 && !r.BackedOff {
				t.Fatalf("the second call was not backed off: %+v", r)
			}
		}
		if first.Load() != 2 || second.Load() != 0 {
			t.Fatalf("the hook's Observer heard %d reports and the one set afterwards %d, want 2 and 0", first.Load(), second.Load())
		}
	})
	t.Run("OnPrepared", func(t *testing.T) {
		t.Parallel()
		mine, other := make(chan PreparedDone, 1), make(chan PreparedDone, 1)
		size := func(n int) float64 { return float64(count(fc1, ppConv("task-0", n)...)) }
		window := 2 * size(6)
		cfg := &HookConfig{Compactor: &ppCompactor{}, ContextWindow: int(window), TokenCounter: fc1, Logger: discardLogger(),
			CompactAt: (size(5) + size(6)) / 2 / window, PrepareAt: (size(3) + size(4)) / 2 / window, CompactTo: size(2) / window,
			OnPrepared: func(_ context.Context, d PreparedDone) { mine <- d }}
		h, err := NewCompactionHook(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.Close(context.Background()) })
		cfg.OnPrepared = func(_ context.Context, d PreparedDone) { other <- d }
		if r, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv("task-0", 4)}); err != nil || !r.Preparing {
			t.Fatalf("at PrepareAt: preparing=%v err=%v", r.Preparing, err)
		}
		select {
		case <-mine:
		case <-other:
			t.Fatal("the prepared compaction was reported to the OnPrepared set after the hook was built")
		}
	})
}
