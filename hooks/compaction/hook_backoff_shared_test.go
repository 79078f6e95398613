package compaction

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
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

// TestBackoffNotSharedThroughFewShotPrefix: conversations that begin with
// the same few-shot exchange (the same message values after the system
// prompt) are still different conversations: one's failed compaction must
// not hold back another's.
func TestBackoffNotSharedThroughFewShotPrefix(t *testing.T) {
	t.Parallel()
	fewShot := []*schema.Message{sys("rules"), user("example question"), asst("example answer")}
	conv := func(task string, n int) []*schema.Message {
		msgs := append(slices.Clone(fewShot), user(task))
		for i := range n {
			msgs = ppStep(msgs, task, i)
		}
		return msgs
	}
	tests := []struct {
		name      string
		second    func(a []*schema.Message) []*schema.Message
		wantTried bool
	}{
		{"another conversation on the same few-shot prefix", func([]*schema.Message) []*schema.Message { return conv("task-b", 6) }, true},
		{"the failed conversation, one step on", func(a []*schema.Message) []*schema.Message { return ppStep(a, "task-a", 6) }, false},
		{"the failed conversation copied, one step on", func(a []*schema.Message) []*schema.Message {
			out := make([]*schema.Message, 0, len(a))
			for _, m := range a {
				out = append(out, deepCopy(m))
			}
			return ppStep(out, "task-a", 6)
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			c := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				calls.Add(1)
				if msgs[3].Content == "task-a" {
					return nil, errors.New("summarizer down")
				}
				return []*schema.Message{msgs[0], NewSummaryMessage("done", len(msgs)-2), msgs[len(msgs)-1]}, nil
			})
			h := ppHook(t, c, nil)
			ctx := context.Background()
			a := conv("task-a", 6)
			if r, _ := h.Decide(ctx, &hooks.State{Messages: a, StepCount: 6}); r.Compacted || r.Err == nil {
				t.Fatalf("conversation a: compacted=%v err=%v, want the failure", r.Compacted, r.Err)
			}
			before := calls.Load()
			r, _ := h.Decide(ctx, &hooks.State{Messages: tc.second(a), StepCount: 7})
			if tried := calls.Load() > before; tried != tc.wantTried || r.BackedOff == tc.wantTried {
				t.Fatalf("compactor ran=%v backed off=%v, want ran=%v", tried, r.BackedOff, tc.wantTried)
			}
		})
	}
}
