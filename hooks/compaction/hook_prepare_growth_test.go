package compaction

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// trimCompactor drops the oldest tool steps (a call and its result) after
// the system prompt and the task until the conversation fits target: a
// compactor that lands just under whatever target it is given.
var trimCompactor = CompactorFunc(func(ctx context.Context, msgs []*schema.Message, target int, counter TokenCounter) ([]*schema.Message, error) {
	out := msgs
	for len(out) > 4 {
		n, err := counter.Count(ctx, out, nil)
		if err != nil {
			return nil, err
		}
		if n <= target {
			break
		}
		out = append([]*schema.Message{out[0], out[1]}, out[4:]...)
	}
	if len(out) == len(msgs) {
		return nil, nil
	}
	return out, nil
})

// TestPreparedResultNoLargerThanSynchronous: a compaction prepared at
// PrepareAt and applied at a call past the trigger (the calls while it was
// written went out uncompacted) leaves the conversation no larger than the
// synchronous target, although everything appended since its snapshot is
// kept. Aiming the prepared compaction at the growth up to the trigger
// only left it above that target, so the next compaction came sooner and
// each re-sent more.
func TestPreparedResultNoLargerThanSynchronous(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const window = 10000
	h, err := NewCompactionHook(ctx, &HookConfig{Compactor: trimCompactor, ContextWindow: window, TokenCounter: fc1,
		Logger: discardLogger(), CompactAt: 0.7, CompactTo: 0.4, PrepareAt: 0.45})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	trigger, syncTarget := h.Thresholds()
	halfway := (trigger + h.e.Ceiling()) / 2
	cases := []struct {
		name      string
		prepareAt int // the conversation's size when the compaction is prepared
		appliedAt int // at least this size when it is applied
	}{
		{"prepared well above PrepareAt, applied just past the trigger", 5500, int(trigger)},
		{"prepared well above PrepareAt, applied further on", 5500, int(trigger) + 300},
		{"prepared at 6000, applied past the trigger", 6000, int(trigger) + 200},
	}
	for i, tc := range cases {
		msgs := []*schema.Message{sys("rules"), user(fmt.Sprintf("task %d", i))}
		step := 0
		grow := func(to int) {
			for count(fc1, msgs...) < to {
				id := fmt.Sprintf("t%d-%d", i, step)
				msgs = append(msgs[:len(msgs):len(msgs)], call(id), result(id, rep("y", 300)))
				step++
			}
		}
		grow(tc.prepareAt)
		if r, err := h.Decide(ctx, &hooks.State{Messages: msgs, StepCount: step}); err != nil || !r.Preparing {
			t.Fatalf("%s: at %d tokens: preparing=%v err=%v", tc.name, count(fc1, msgs...), r.Preparing, err)
		}
		ppWaitPrepared(t, h, msgs)
		grow(tc.appliedAt)
		if n := count(fc1, msgs...); float64(n) >= halfway {
			t.Fatalf("%s: the call stands at %d tokens, past halfway to the ceiling (%v): fix the test", tc.name, n, halfway)
		}
		state := &hooks.State{Messages: msgs, StepCount: step}
		r, err := h.Decide(ctx, state)
		if err != nil || !r.Compacted || !r.Prepared {
			t.Fatalf("%s: compacted=%v prepared=%v err=%v", tc.name, r.Compacted, r.Prepared, err)
		}
		if after := count(fc1, state.Messages...); after > syncTarget {
			t.Errorf("%s: applied at %d tokens, the prepared compaction left %d; want at most the synchronous target %d",
				tc.name, count(fc1, msgs...), after, syncTarget)
		}
	}
}
