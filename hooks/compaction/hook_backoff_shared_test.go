package compaction

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestBackoffNotSharedThroughSystemPrompt: many servers build every
// conversation on one system message value (a package-level prompt). A
// compaction failing for one conversation must not hold back another that
// shares only that message, least of all one whose prepared compaction is
// ready.
func TestBackoffNotSharedThroughSystemPrompt(t *testing.T) {
	t.Parallel()
	prompt := sys("rules")
	c := &ppCompactor{fail: func(n int) error {
		if n == 2 { // the synchronous compaction of conversation a
			return errors.New("summarizer down")
		}
		return nil
	}}
	h := ppHook(t, c, nil)
	ctx := context.Background()
	conv := func(task string, n int) []*schema.Message {
		msgs := ppConv(task, n)
		msgs[0] = prompt
		return msgs
	}
	b := conv("task-b", 4)
	if _, err := h.Decide(ctx, &hooks.State{Messages: b, StepCount: 4}); err != nil {
		t.Fatal(err)
	}
	ppWaitPrepared(t, h, b)
	if r, _ := h.Decide(ctx, &hooks.State{Messages: conv("task-a", 6), StepCount: 6}); r.Compacted || r.Err == nil {
		t.Fatalf("conversation a: compacted=%v err=%v, want the failure", r.Compacted, r.Err)
	}
	st := &hooks.State{Messages: ppStep(ppStep(b, "task-b", 4), "task-b", 5), StepCount: 6}
	r, err := h.Decide(ctx, st)
	if err != nil || r.BackedOff || !r.Compacted || !r.Prepared {
		t.Fatalf("conversation b: err=%v backed off=%v compacted=%v prepared=%v, want its prepared compaction applied", err, r.BackedOff, r.Compacted, r.Prepared)
	}
}
