package compaction

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestHookBacksOffAfterFailedCompaction: after a triggered compaction that
// did not apply, the same conversation is not compacted again until it has
// grown by 10% of the window or 8 calls have passed, unless the coming call
// is at or above the ceiling (850 here); a success ends the backoff, and
// another conversation is not held back.
func TestHookBacksOffAfterFailedCompaction(t *testing.T) {
	t.Parallel()
	const window = 1000 // trigger 700; 10% growth = 100 tokens
	type call struct {
		conv  int // which conversation
		size  int // its size in fc1 tokens
		step  int
		works bool // the compactor succeeds at this call
	}
	tests := []struct {
		name      string
		outcome   func(calls *atomic.Int32) Compactor
		calls     []call
		wantTries []bool // whether the compactor ran at each call
		wantOver  []bool // Report.Overflow at each call
	}{
		{
			name:      "fails: held until 8 calls pass",
			calls:     []call{{0, 720, 0, false}, {0, 730, 1, false}, {0, 740, 7, false}, {0, 750, 8, false}, {0, 760, 9, false}},
			wantTries: []bool{true, false, false, true, false},
			wantOver:  []bool{false, false, false, false, false},
		},
		{
			name:      "fails: retried once grown by 10% of the window",
			calls:     []call{{0, 720, 0, false}, {0, 819, 1, false}, {0, 829, 2, false}, {0, 840, 3, false}},
			wantTries: []bool{true, false, true, false},
			wantOver:  []bool{false, false, false, false},
		},
		{
			name:      "at the ceiling: always tried",
			calls:     []call{{0, 760, 0, false}, {0, 840, 1, false}, {0, 850, 2, false}, {0, 860, 3, false}},
			wantTries: []bool{true, false, true, true},
			wantOver:  []bool{false, false, false, false},
		},
		{
			name:      "above the window: always tried, and the overflow reported",
			calls:     []call{{0, 720, 0, false}, {0, 1001, 1, false}, {0, 1011, 2, true}},
			wantTries: []bool{true, true, true},
			wantOver:  []bool{false, true, false},
		},
		{
			name:      "a success ends the backoff; other conversations are not held",
			calls:     []call{{0, 720, 0, false}, {1, 720, 0, true}, {0, 730, 1, false}, {0, 820, 2, true}, {0, 830, 3, true}},
			wantTries: []bool{true, true, false, true, true},
			wantOver:  []bool{false, false, false, false, false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tries atomic.Int32
			var works atomic.Bool
			comp := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				tries.Add(1)
				if !works.Load() {
					return nil, errors.New("summarizer down")
				}
				return []*schema.Message{msgs[0], user("short")}, nil
			})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: window, TokenCounter: fc1, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			convs := [][]*schema.Message{{user("conversation zero")}, {user("conversation one")}}
			for i, c := range tc.calls {
				// A conversation grows by appending: one message
				// brings it to the wanted size (fc1 counts a user
				// message as its text and 8 tokens).
				pad := c.size - count(fc1, convs[c.conv]...) - 1 - len("[user] ")
				convs[c.conv] = append(convs[c.conv][:len(convs[c.conv]):len(convs[c.conv])], user(rep("x", pad)))
				st := &hooks.State{Messages: convs[c.conv], StepCount: c.step}
				if got := count(fc1, st.Messages...); got != c.size {
					t.Fatalf("call %d: padded to %d, want %d", i, got, c.size)
				}
				works.Store(c.works)
				before := tries.Load()
				r, _ := h.Decide(context.Background(), st)
				tried := tries.Load() > before
				if tried != tc.wantTries[i] {
					t.Errorf("call %d: compactor ran = %v, want %v", i, tried, tc.wantTries[i])
				}
				if r.BackedOff == tried {
					t.Errorf("call %d: Report.BackedOff = %v although the compactor ran = %v", i, r.BackedOff, tried)
				}
				if r.Overflow != tc.wantOver[i] {
					t.Errorf("call %d: Report.Overflow = %v, want %v", i, r.Overflow, tc.wantOver[i])
				}
			}
		})
	}
}

// TestCancelledRunDoesNotBackOff: a compaction cut short because the run's
// ctx ended says nothing about the compactor, so it does not hold back the
// next compaction of the same conversation (a run resumed with the same
// messages compacts at its first call at the trigger). A compaction that
// failed on its own under a live ctx still does.
func TestCancelledRunDoesNotBackOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cancelled bool // the first call's ctx ends during its compaction
		wantRetry bool // the next call, ctx live, runs the compactor
	}{
		{"cancelled run", true, true},
		{"failed compaction", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tries atomic.Int32
			comp := CompactorFunc(func(ctx context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				if tries.Add(1) == 1 && tc.cancelled {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return nil, errors.New("summarizer down")
			})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 1000, TokenCounter: fc1, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{user("the conversation"), user(rep("x", 720))}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancelled {
				go func() {
					for tries.Load() == 0 {
						runtime.Gosched()
					}
					cancel()
				}()
			}
			_, _ = h.Decide(ctx, &hooks.State{Messages: msgs, StepCount: 1})
			cancel()
			r, _ := h.Decide(context.Background(), &hooks.State{Messages: msgs, StepCount: 2})
			if got := tries.Load() == 2; got != tc.wantRetry {
				t.Errorf("the second call ran the compactor = %v, want %v (Report.BackedOff %v)", got, tc.wantRetry, r.BackedOff)
			}
		})
	}
}

// TestHookBacksOffOnlyAfterAFailure: a triggered compaction that declined
// without calling the summarizer (only the protected newest step exists)
// starts no backoff, so the next call, whose older step can now be
// summarized, compacts. One whose summarizer rounds all failed does start
// it, and its Report.Err carries the summarizer's error.
func TestHookBacksOffOnlyAfterAFailure(t *testing.T) {
	t.Parallel()
	down := errors.New("summarizer down")
	big := rep("r", 650) // both calls below the ceiling (850), where a backoff may hold
	tests := []struct {
		name        string
		first       []*schema.Message // the first triggered call's conversation
		summarizer  scStep
		wantFirst   error // Report.Err of the first call (errors.Is)
		wantRetried bool  // the second call ran the compactor
	}{
		{
			name:        "declined: only the newest step exists",
			first:       []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", big)},
			summarizer:  scStep{text: "c1 searched"},
			wantRetried: true,
		},
		{
			name:       "every summarizer round failed",
			first:      []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", big), call("c2"), result("c2", "ok")},
			summarizer: scStep{err: down},
			wantFirst:  down,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := &scModel{t: t, fixed: &tc.summarizer}
			comp, _, _ := scNew(t, m, scConfig{})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 1000, TokenCounter: fc1, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			r, err := h.Decide(context.Background(), &hooks.State{Messages: tc.first, StepCount: 1})
			if err != nil || !r.Triggered || r.Compacted {
				t.Fatalf("first call: triggered=%v compacted=%v err=%v, want triggered, not compacted, no error", r.Triggered, r.Compacted, err)
			}
			if !errors.Is(r.Err, tc.wantFirst) || (r.Err == nil) != (tc.wantFirst == nil) {
				t.Fatalf("first call: Report.Err = %v, want %v", r.Err, tc.wantFirst)
			}
			calls := len(m.prompts())
			// One step later, grown by far less than 10 % of the window.
			second := append(slices.Clone(tc.first), call("c9"), result("c9", "ok"))
			if n := count(fc1, second...); float64(n) >= h.e.Ceiling() {
				t.Fatalf("the second call, at %d tokens, is at the ceiling: no backoff holds it", n)
			}
			r, err = h.Decide(context.Background(), &hooks.State{Messages: second, StepCount: 2})
			if err != nil {
				t.Fatal(err)
			}
			retried := len(m.prompts()) > calls
			if retried != tc.wantRetried || r.BackedOff == tc.wantRetried || r.Compacted != tc.wantRetried {
				t.Errorf("second call: summarizer called=%v BackedOff=%v Compacted=%v, want called and compacted = %v",
					retried, r.BackedOff, r.Compacted, tc.wantRetried)
			}
		})
	}
}

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
