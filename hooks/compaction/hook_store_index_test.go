package compaction

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestSharedOpeningStillShared (issue 30 item 2): 40 conversations with the
// same system prompt and first user message, compacted on hook A one after
// the other, are then applied on hook B without a compactor call there: 40
// calls in all, as in one process. Before: every prefix was filed under the
// opening alone, in one list of 32 keys, so B, a step further in each
// conversation, found only the last 32 and compacted 8 itself.
func TestSharedOpeningStillShared(t *testing.T) {
	t.Parallel()
	store := NewMemoryStore()
	ca, cb := idCompactor{&ppCompactor{}, "pp"}, idCompactor{&ppCompactor{}, "pp"}
	noPrepare := func(cfg *HookConfig) { cfg.PrepareAt = 0 }
	a, b := stHook(t, ca, store, noPrepare), stHook(t, cb, store, noPrepare)
	const convs = 40
	conv := func(i, steps int) []*schema.Message {
		msgs := []*schema.Message{sys("rules"), user("task-0")}
		for step := range steps {
			msgs = ppStep(msgs, fmt.Sprintf("task%02d", i), step)
		}
		return msgs
	}
	ctx := context.Background()
	for i := range convs {
		if r, err := a.Decide(ctx, &hooks.State{Messages: conv(i, 6)}); err != nil || !r.Compacted || r.Shared {
			t.Fatalf("A, conversation %d: err=%v compacted=%v shared=%v, want its own compaction", i, err, r.Compacted, r.Shared)
		}
	}
	for i := range convs {
		if r, err := b.Decide(ctx, &hooks.State{Messages: copyAll(conv(i, 7))}); err != nil || !r.Compacted || !r.Shared {
			t.Errorf("B, conversation %d: err=%v compacted=%v shared=%v, want A's compaction", i, err, r.Compacted, r.Shared)
		}
	}
	if na, nb := len(ca.callsNow()), len(cb.callsNow()); na != convs || nb != 0 {
		t.Fatalf("compactor calls: A %d, B %d; want %d and 0", na, nb, convs)
	}
}
