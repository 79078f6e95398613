package compaction

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestCopiedMessagesKeepPreparedWork: a middleware that hands the hook a
// copy of every message before each call must neither start a new
// background compaction at every call between PrepareAt and CompactAt nor
// lose the prepared one at the trigger.
func TestCopiedMessagesKeepPreparedWork(t *testing.T) {
	t.Parallel()
	copyAll := func(msgs []*schema.Message) []*schema.Message {
		out := make([]*schema.Message, len(msgs))
		for i, m := range msgs {
			out[i] = deepCopy(m)
		}
		return out
	}
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	ctx := context.Background()
	msgs := ppConv("task-0", 4) // at PrepareAt
	if _, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)}); err != nil {
		t.Fatal(err)
	}
	ppWaitPrepared(t, h, msgs)
	msgs = ppStep(msgs, "task-0", 4) // still below CompactAt
	if r, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)}); err != nil || r.Triggered {
		t.Fatalf("below the trigger: triggered=%v err=%v", r.Triggered, err)
	}
	msgs = ppStep(msgs, "task-0", 5) // at CompactAt
	r, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)})
	if err != nil || !r.Compacted || !r.Prepared {
		t.Fatalf("at the trigger: err=%v compacted=%v prepared=%v, want the prepared result applied", err, r.Compacted, r.Prepared)
	}
	if calls := c.callsNow(); len(calls) != 1 {
		t.Fatalf("compactor calls %+v, want the one prepared at PrepareAt", calls)
	}
}
