package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// bcGrow returns msgs with one more tool step appended, its result sized
// so that the conversation is exactly size fc1 tokens.
func bcGrow(t *testing.T, msgs []*schema.Message, size int) []*schema.Message {
	t.Helper()
	id := fmt.Sprintf("s%d", len(msgs))
	out := append(slices.Clip(msgs), call(id), result(id, ""))
	out[len(out)-1] = result(id, rep("z", size-count(fc1, out...)))
	if got := count(fc1, out...); got != size {
		t.Fatalf("grown to %d tokens, want %d", got, size)
	}
	return out
}

// TestBackoffNeverHoldsACallAtTheCeiling: after a compaction that did not
// apply (refused as Unprofitable under Prices, or failed), a call at or
// above the ceiling halfway from CompactAt to the window is compacted,
// although the conversation grew by less than the backoff's 10 % of the
// window and fewer than 8 calls passed: the backoff holds calls below the
// ceiling only. It held calls at 86.8 % and 89.9 % of the window, which the
// documentation says are "compacted whatever it costs".
func TestBackoffNeverHoldsACallAtTheCeiling(t *testing.T) {
	t.Parallel()
	const window = 10000 // trigger 7000, ceiling 8500, backoff growth 1000
	down := errors.New("summarizer down")
	fails := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		return nil, down
	})
	tests := []struct {
		name        string
		failing     bool // the compactor fails; else it is a small rewrite refused as Unprofitable
		first, next int
		wantHeld    bool
	}{
		{"unprofitable, then just below the ceiling: held", false, 8000, 8499, true},
		{"unprofitable, then at the ceiling", false, 8000, 8500, false},
		{"unprofitable, then at 86.8 %", false, 8000, 8680, false},
		{"unprofitable, then at 89.9 %", false, 8100, 8990, false},
		{"failed, then just below the ceiling: held", true, 8000, 8499, true},
		{"failed, then at 86.8 %", true, 8000, 8680, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			comp := keepOneLess
			if tc.failing {
				comp = fails
			}
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: window, TokenCounter: fc1,
				Logger: discardLogger(), Prices: &PricesOpenAI})
			if err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{sys("rules"), user("task")}
			for size := 1000; size < tc.first; size += 1000 {
				msgs = bcGrow(t, msgs, size)
			}
			msgs = bcGrow(t, msgs, tc.first)
			r, _ := h.Decide(context.Background(), &hooks.State{Messages: msgs, StepCount: 10})
			if r.Compacted || (r.Err != nil) != tc.failing || r.Unprofitable != (r.Err == nil) {
				t.Fatalf("first call: compacted %v, unprofitable %v, err %v; want a compaction that did not apply", r.Compacted, r.Unprofitable, r.Err)
			}
			msgs = bcGrow(t, msgs, tc.next)
			r, _ = h.Decide(context.Background(), &hooks.State{Messages: msgs, StepCount: 11})
			if r.BackedOff != tc.wantHeld {
				t.Fatalf("a call at %d tokens (ceiling %.0f): BackedOff = %v, want %v", tc.next, h.e.Ceiling(), r.BackedOff, tc.wantHeld)
			}
			if tc.wantHeld || tc.failing {
				return
			}
			if !r.Compacted || r.Unprofitable {
				t.Errorf("a call at %d tokens: compacted %v, unprofitable %v; want it compacted whatever it costs", tc.next, r.Compacted, r.Unprofitable)
			}
		})
	}
}
