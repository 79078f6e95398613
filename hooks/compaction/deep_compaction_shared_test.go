package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// sharedSpy is a deepSpy a Store may share results of.
type sharedSpy struct{ *deepSpy }

func (sharedSpy) CompactionIdentity() string { return "deep-spy" }

// A result a hook asking for deep compactions put in the Store is never
// applied by a hook that does not (AimAtCompactTo) or weighs the depth by
// other prices, and the other way round; hooks that choose the depth alike
// share it.
func TestDeepCompactionStoreScope(t *testing.T) {
	t.Parallel()
	assumed, openAI, anthropic := func(*HookConfig) {}, func(c *HookConfig) { c.Prices = &PricesOpenAI }, func(c *HookConfig) { c.Prices = &PricesAnthropic }
	aim := func(c *HookConfig) { c.AimAtCompactTo = true }
	cases := []struct {
		name           string
		writer, reader func(*HookConfig)
		shared         bool
	}{
		{"deep, then deep", assumed, assumed, true},
		{"deep, then AimAtCompactTo", assumed, aim, false},
		{"AimAtCompactTo, then deep", aim, assumed, false},
		{"AimAtCompactTo, then AimAtCompactTo", aim, aim, true},
		{"assumed prices, then the same prices set", assumed, openAI, true},
		{"assumed prices, then other prices", assumed, anthropic, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := NewMemoryStore()
			run := func(edit func(*HookConfig)) (Report, int) {
				spy := &deepSpy{}
				cfg := &HookConfig{Compactor: sharedSpy{spy}, ContextWindow: 20000, TokenCounter: fc1,
					Logger: slog.New(slog.DiscardHandler), Store: store}
				edit(cfg)
				h, err := NewCompactionHook(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = h.Close(context.Background()) })
				// Each hook reads its own copy, as another replica would.
				r, err := h.Decide(context.Background(), &hooks.State{Messages: copyAll(deepConversation(0, 50, 300))})
				if err != nil || !r.Compacted {
					t.Fatalf("compacted %v, err %v", r.Compacted, err)
				}
				spy.mu.Lock()
				defer spy.mu.Unlock()
				return r, len(spy.asked)
			}
			if _, calls := run(tc.writer); calls != 1 {
				t.Fatalf("the writer's compactor ran %d times, want once", calls)
			}
			r, calls := run(tc.reader)
			if r.Shared != tc.shared || (calls == 0) != tc.shared {
				t.Errorf("reader: Shared %v, its compactor ran %d times; want shared %v", r.Shared, calls, tc.shared)
			}
		})
	}
}

// A deep compaction prepared in the background (PrepareAt) and applied at
// the trigger leaves at least a fifth of the window verbatim: the newest
// messages of its snapshot it keeps and what was appended since, together.
func TestPreparedDeepCompactionKeepsAFifthAtTheTrigger(t *testing.T) {
	t.Parallel()
	const window = 20000
	cases := []struct {
		name     string
		steps    int // steps in the snapshot
		appended int // characters of each appended result
	}{
		{"prepared far below the trigger", 30, 300},
		{"prepared near the trigger", 38, 300},
		{"one large result reaches the trigger", 34, 4500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := scNew(t, scFixed(t, "short summary"), scConfig{})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: window, PrepareAt: 0.5,
				TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close(context.Background()) })
			trigger, _ := h.Thresholds()
			msgs := deepConversation(0, tc.steps, 300)
			if est := count(fc1, msgs...); float64(est) < 0.5*window || float64(est) >= trigger {
				t.Fatalf("%d tokens, not between PrepareAt and the trigger", est)
			}
			r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs})
			if err != nil || !r.Preparing {
				t.Fatalf("preparing %v, err %v", r.Preparing, err)
			}
			if err := h.WaitPrepared(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i := 0; float64(count(fc1, msgs...)) < trigger; i++ {
				id := fmt.Sprintf("a%d", i)
				msgs = append(msgs, call(id), result(id, rep("y", tc.appended)))
			}
			state := &hooks.State{Messages: msgs}
			r, err = h.Decide(context.Background(), state)
			if err != nil || !r.Compacted || !r.Prepared || !r.Deep {
				t.Fatalf("compacted %v, prepared %v, deep %v, err %v", r.Compacted, r.Prepared, r.Deep, err)
			}
			tail := verbatimTail(msgs, state.Messages)
			if held := count(fc1, msgs[len(msgs)-tail:]...); float64(held) < 0.2*window {
				t.Errorf("the newest %d messages hold %d tokens, below a fifth of the window (%d)", tail, held, window/5)
			}
			if err := shape.NewFaults(msgs, state.Messages); err != nil {
				t.Error(err)
			}
		})
	}
}
