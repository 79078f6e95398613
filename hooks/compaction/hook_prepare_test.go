package compaction

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// ppCompactor replaces everything between the system prompt and the last
// assistant message with one summary naming the conversation's task, so a
// test can tell whose conversation a result was computed from. It records
// every call; with gate set it waits for the gate first, and with deaf it
// does so without listening to ctx.
type ppCompactor struct {
	gate chan struct{}
	deaf bool
	// awaited: a prepared call answers only once a model call waits for it
	// (Awaited), so a test sees a job still running at the ceiling without
	// racing a timer against the hook.
	awaited bool
	hold    time.Duration // sleep this long before answering
	fail    func(call int) error

	mu    sync.Mutex
	calls []ppCall
}

type ppCall struct {
	messages int
	target   int
}

func (c *ppCompactor) Compact(ctx context.Context, msgs []*schema.Message, target int, _ TokenCounter) ([]*schema.Message, error) {
	c.mu.Lock()
	c.calls = append(c.calls, ppCall{messages: len(msgs), target: target})
	n := len(c.calls)
	c.mu.Unlock()
	if c.gate != nil {
		if c.deaf {
			<-c.gate
		} else {
			select {
			case <-c.gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	if c.awaited {
		select {
		case <-Awaited(ctx):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	time.Sleep(c.hold)
	if c.fail != nil {
		if err := c.fail(n); err != nil {
			return nil, err
		}
	}
	last := LastAssistantIndex(msgs)
	if last <= 1 {
		return nil, nil
	}
	out := []*schema.Message{msgs[0], NewSummaryMessage("task: "+msgs[1].Content, last-1)}
	return append(out, msgs[last:]...), nil
}

func (c *ppCompactor) callsNow() []ppCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ppCall(nil), c.calls...)
}

// ppConv is a conversation of task with n tool steps of 120 characters each.
func ppConv(task string, n int) []*schema.Message {
	msgs := []*schema.Message{sys("rules"), user(task)}
	for i := range n {
		msgs = ppStep(msgs, task, i)
	}
	return msgs
}

// ppStep appends step i of task (a call and its result) to a copy of msgs.
func ppStep(msgs []*schema.Message, task string, i int) []*schema.Message {
	id := fmt.Sprintf("%s-%d", task, i)
	return append(msgs[:len(msgs):len(msgs)], call(id), result(id, rep("x", 120)))
}

// ppHook returns a hook over c for conversations of ppConv shape whose
// window puts PrepareAt between 3 and 4 steps and CompactAt between 5 and 6.
func ppHook(t *testing.T, c Compactor, obs Observer) *CompactionHook {
	t.Helper()
	size := func(n int) float64 { return float64(count(fc1, ppConv("task-0", n)...)) }
	window := 2 * size(6)
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: int(window), TokenCounter: fc1, Logger: discardLogger(),
		CompactAt: (size(5) + size(6)) / 2 / window, PrepareAt: (size(3) + size(4)) / 2 / window, CompactTo: size(2) / window, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// ppPrepared has h prepare the compaction of a four-step conversation, waits
// until it is written, and returns the conversation.
func ppPrepared(t *testing.T, h *CompactionHook) []*schema.Message {
	t.Helper()
	msgs := ppConv("task-0", 4)
	if r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs}); err != nil || r.Triggered {
		t.Fatalf("at PrepareAt: triggered=%v err=%v", r.Triggered, err)
	}
	ppWaitPrepared(t, h, msgs)
	return msgs
}

// ppWaitPrepared waits until the job prepared for msgs finished.
func ppWaitPrepared(t *testing.T, h *CompactionHook, msgs []*schema.Message) {
	t.Helper()
	j, _ := h.e.Jobs.Find(msgs, false, time.Now())
	if j == nil {
		t.Fatal("no compaction was prepared for the conversation")
	}
	select {
	case <-j.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the prepared compaction did not finish")
	}
}

func TestPrepareAtValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		prepareAt float64
		ok        bool
	}{
		{"off", 0, true},
		{"between", 0.55, true},
		{"at CompactTo", 0.4, false},
		{"below CompactTo", 0.3, false},
		{"at CompactAt", 0.7, false},
		{"above CompactAt", 0.8, false},
		{"negative", -0.5, false},
		{"NaN", math.NaN(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: &ppCompactor{}, ContextWindow: 1000, PrepareAt: tt.prepareAt})
			if tt.ok != (err == nil) {
				t.Fatalf("PrepareAt=%v: err = %v, want ok=%v", tt.prepareAt, err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "PrepareAt") {
				t.Fatalf("error %q does not name PrepareAt", err)
			}
			if h != nil {
				_ = h.Close(context.Background())
			}
		})
	}
}

// TestPreparedCompactionApplied: the call at PrepareAt starts the compaction
// and goes out unchanged; the call at the trigger gets the prepared result,
// with the steps appended since kept verbatim, without calling the
// compactor again.
func TestPreparedCompactionApplied(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	var reports []Report
	h := ppHook(t, c, ObserverFunc(func(_ context.Context, r Report) { reports = append(reports, r) }))
	ctx := context.Background()

	msgs := ppConv("task-0", 4)
	st := &hooks.State{Messages: msgs}
	r, err := h.Decide(ctx, st)
	if err != nil || r.Triggered || len(st.Messages) != len(msgs) {
		t.Fatalf("at PrepareAt: err=%v triggered=%v messages %d -> %d; want the call to go out unchanged", err, r.Triggered, len(msgs), len(st.Messages))
	}
	ppWaitPrepared(t, h, msgs)
	if calls := c.callsNow(); len(calls) != 1 || calls[0].messages != len(msgs) {
		t.Fatalf("compactor calls = %+v, want one on the %d-message conversation", calls, len(msgs))
	}

	grown := ppStep(ppStep(msgs, "task-0", 4), "task-0", 5)
	st = &hooks.State{Messages: grown}
	r, err = h.Decide(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Triggered || !r.Compacted || !r.Prepared {
		t.Fatalf("at the trigger: triggered=%v compacted=%v prepared=%v, want all true", r.Triggered, r.Compacted, r.Prepared)
	}
	if n := len(c.callsNow()); n != 1 {
		t.Fatalf("compactor called %d times, want once (the prepared call)", n)
	}
	// The prepared result kept the last step of the snapshot; the four
	// messages appended since follow it unchanged.
	want := append([]*schema.Message{msgs[0], nil}, msgs[len(msgs)-2:]...)
	want = append(want, grown[len(msgs):]...)
	if len(st.Messages) != len(want) {
		t.Fatalf("messages after = %d, want %d", len(st.Messages), len(want))
	}
	for i, m := range want {
		if m != nil && st.Messages[i] != m {
			t.Fatalf("message %d is not the one expected (%q)", i, m.Content)
		}
	}
	if !strings.Contains(st.Messages[1].Content, "task: task-0") {
		t.Fatalf("summary %q is not this conversation's", st.Messages[1].Content)
	}
	if err := shape.NewFaults(grown, st.Messages); err != nil {
		t.Fatal(err)
	}
	if len(reports) != 1 || !reports[0].Prepared {
		t.Fatalf("observer got %d reports (%+v), want the prepared one", len(reports), reports)
	}
}

// TestPreparedTargetAllowsForGrowth: the prepared job aims below the
// synchronous target, so that the messages appended before the trigger do
// not leave the merged conversation above it.
func TestPreparedTargetAllowsForGrowth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prep, sync := &ppCompactor{}, &ppCompactor{}
	hp, hs := ppHook(t, prep, nil), ppHook(t, sync, nil)
	ppPrepared(t, hp)
	if _, err := hs.Decide(ctx, &hooks.State{Messages: ppConv("task-0", 6)}); err != nil {
		t.Fatal(err)
	}
	p, s := prep.callsNow(), sync.callsNow()
	if len(p) != 1 || len(s) != 1 || p[0].target >= s[0].target || p[0].target <= 0 {
		t.Fatalf("prepared calls %+v, synchronous %+v: want a prepared target in (0, synchronous target)", p, s)
	}
}

// TestPreparedResultNotApplied: a prepared result is never applied to a
// conversation that does not begin with its snapshot, and a prepared job
// that fails or declines is never fatal; in every case the trigger compacts
// synchronously.
func TestPreparedResultNotApplied(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fail    func(int) error
		rewrite func(snapshot []*schema.Message) []*schema.Message
	}{
		{"conversation rewritten", nil, func(s []*schema.Message) []*schema.Message {
			out := append([]*schema.Message{s[0], user("task-0, redacted")}, s[2:]...) // the request edited
			return ppStep(ppStep(out, "task-0", 4), "task-0", 5)
		}},
		{"message dropped from the middle", nil, func(s []*schema.Message) []*schema.Message {
			out := append(append([]*schema.Message{}, s[:2]...), s[4:]...)
			return ppStep(ppStep(ppStep(out, "task-0", 4), "task-0", 5), "task-0", 6)
		}},
		{"background failure", func(n int) error {
			if n == 1 {
				return errors.New("summarizer down")
			}
			return nil
		}, nil},
		{"background panic", func(n int) error {
			if n == 1 {
				panic("summarizer bug")
			}
			return nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &ppCompactor{fail: tt.fail}
			h := ppHook(t, c, nil)
			ctx := context.Background()
			msgs := ppPrepared(t, h)
			now := ppStep(ppStep(msgs, "task-0", 4), "task-0", 5)
			if tt.rewrite != nil {
				now = tt.rewrite(msgs)
			}
			st := &hooks.State{Messages: now}
			r, err := h.Decide(ctx, st)
			if err != nil {
				t.Fatalf("Decide = %v, want a synchronous compaction", err)
			}
			if !r.Compacted || r.Prepared {
				t.Fatalf("compacted=%v prepared=%v, want a synchronous compaction", r.Compacted, r.Prepared)
			}
			calls := c.callsNow()
			if len(calls) != 2 || calls[1].messages != len(now) {
				t.Fatalf("compactor calls %+v, want the prepared one and one on the %d current messages", calls, len(now))
			}
			if err := shape.NewFaults(now, st.Messages); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPreparedSharedHookConcurrentRuns: one hook serving many conversations
// at once applies to each only the result computed from it.
func TestPreparedSharedHookConcurrentRuns(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	var prepared sync.Map
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			task := fmt.Sprintf("task-%d", i)
			msgs := ppConv(task, 1)
			for step := 1; step < 12; step++ {
				st := &hooks.State{Messages: msgs}
				r, err := h.Decide(context.Background(), st)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Prepared {
					prepared.Store(i, true)
				}
				for _, m := range st.Messages {
					if HasMarkerKey(m) && !strings.Contains(m.Content, "task: "+task+"\n") {
						t.Errorf("%s got a summary of another conversation: %q", task, m.Content)
					}
				}
				if err := shape.NewFaults(msgs, st.Messages); err != nil {
					t.Error(err)
				}
				msgs = ppStep(st.Messages, task, step)
				time.Sleep(time.Millisecond) // give background jobs a chance, like a model call
			}
		})
	}
	wg.Wait()
	n := 0
	prepared.Range(func(any, any) bool { n++; return true })
	if n == 0 {
		t.Fatal("no run applied a prepared compaction")
	}
}

// TestPreparedStillRunningAtTrigger: a call at the ceiling waits for a
// prepared job still running rather than starting over, and its Stall is
// that wait. (Below the ceiling the call would go out uncompacted:
// TestDeferredBelowCeiling.)
func TestPreparedStillRunningAtTrigger(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{awaited: true, hold: time.Millisecond}
	h := ppHook(t, c, nil)
	ctx := context.Background()
	msgs := ppConv("task-0", 4)
	if _, err := h.Decide(ctx, &hooks.State{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	// The model call in between: the job has been running for a while
	// when the call at the ceiling arrives, and it finishes only once that
	// call waits for it.
	time.Sleep(30 * time.Millisecond)
	now := msgs
	for i := 4; float64(count(fc1, now...)) < h.e.Ceiling(); i++ {
		now = ppStep(now, "task-0", i)
	}
	st := &hooks.State{Messages: now}
	called := time.Now()
	r, err := h.Decide(ctx, st)
	elapsed := time.Since(called)
	if err != nil {
		t.Fatal(err)
	}
	// What was appended since the snapshot is more than the trigger's
	// worth here, so a synchronous top-up follows the prepared result.
	if !r.Prepared || !r.Compacted || r.Deferred || len(c.callsNow()) < 1 {
		t.Fatalf("prepared=%v compacted=%v deferred=%v calls=%d, want the prepared result after waiting for it", r.Prepared, r.Compacted, r.Deferred, len(c.callsNow()))
	}
	// The stall is this call's wait, not the job's whole run, which began
	// before the call: it lies within the call.
	if r.Stall <= 0 || r.Stall > elapsed {
		t.Fatalf("Stall %v, want the wait: above 0 and within the call's %v (compactor ran %v)", r.Stall, elapsed, r.Duration)
	}
}

// TestPreparedTopUp: when the prepared result plus what was appended since
// still reaches the trigger (a huge tool result arrived), a synchronous
// compaction of the merged conversation follows in the same call.
func TestPreparedTopUp(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	ctx := context.Background()
	msgs := ppPrepared(t, h)
	huge := append(msgs[:len(msgs):len(msgs)], call("big"), result("big", rep("y", h.Limits().ContextWindow)))
	now := ppStep(huge, "task-0", 5)
	st := &hooks.State{Messages: now}
	r, err := h.Decide(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	calls := c.callsNow()
	if !r.Prepared || !r.Compacted || len(calls) != 2 {
		t.Fatalf("prepared=%v compacted=%v calls=%+v, want the prepared result then a synchronous top-up", r.Prepared, r.Compacted, calls)
	}
	if trigger, _ := h.Thresholds(); float64(count(fc1, st.Messages...)) >= trigger {
		t.Fatalf("after the top-up the call is %d tokens, trigger %v", count(fc1, st.Messages...), trigger)
	}
	if err := shape.NewFaults(now, st.Messages); err != nil {
		t.Fatal(err)
	}
}

// TestStallSynchronous: without PrepareAt, Stall is the whole compaction.
func TestStallSynchronous(t *testing.T) {
	t.Parallel()
	const hold = 30 * time.Millisecond
	c := &ppCompactor{hold: hold}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2, TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv("task-0", 3)})
	if err != nil || !r.Compacted || r.Prepared {
		t.Fatalf("err=%v compacted=%v prepared=%v", err, r.Compacted, r.Prepared)
	}
	if r.Stall < hold || r.Stall < r.Duration {
		t.Fatalf("Stall %v, want at least the compactor's %v (held %v)", r.Stall, r.Duration, hold)
	}
}

// TestPreparedAcrossRuns: a job started by a run that then ends (its ctx
// cancelled) keeps going and serves the next run of the same conversation.
func TestPreparedAcrossRuns(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{gate: make(chan struct{})}
	h := ppHook(t, c, nil)
	run1, end1 := context.WithCancel(context.Background())
	msgs := ppConv("task-0", 4)
	if _, err := h.Decide(run1, &hooks.State{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	end1()
	close(c.gate)
	ppWaitPrepared(t, h, msgs)
	st := &hooks.State{Messages: ppStep(ppStep(msgs, "task-0", 4), "task-0", 5)}
	r, err := h.Decide(context.Background(), st)
	if err != nil || !r.Prepared {
		t.Fatalf("next run: err=%v prepared=%v, want the result prepared in the previous run", err, r.Prepared)
	}
}

// TestPreparedBounds: a hook keeps at most maxJobs prepared compactions and
// none older than maxAge.
func TestPreparedBounds(t *testing.T) {
	t.Parallel()
	t.Run("count", func(t *testing.T) {
		t.Parallel()
		c := &ppCompactor{gate: make(chan struct{})}
		h := ppHook(t, c, nil)
		h.e.Jobs.MaxJobs = 2
		for i := range 3 {
			if _, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv(fmt.Sprintf("task-%d", i), 4)}); err != nil {
				t.Fatal(err)
			}
		}
		if kept, running := h.e.Jobs.Len(), h.e.Jobs.Running(); kept != 2 || running != 2 {
			t.Fatalf("%d compactions kept and %d running with room for 2", kept, running)
		}
		close(c.gate)
	})
	t.Run("age", func(t *testing.T) {
		t.Parallel()
		c := &ppCompactor{}
		h := ppHook(t, c, nil)
		h.e.Jobs.MaxAge = time.Nanosecond
		msgs := ppConv("task-0", 4)
		if _, err := h.Decide(context.Background(), &hooks.State{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		r, err := h.Decide(context.Background(), &hooks.State{Messages: ppStep(ppStep(msgs, "task-0", 4), "task-0", 5)})
		if err != nil || r.Prepared || !r.Compacted {
			t.Fatalf("err=%v prepared=%v compacted=%v, want the expired job ignored and a synchronous compaction", err, r.Prepared, r.Compacted)
		}
		if h.e.Jobs.Len() != 0 {
			t.Fatalf("%d jobs kept after expiry", h.e.Jobs.Len())
		}
	})
}

// TestHookReturnsAtDeadlineWhenCompactorIgnoresCtx: the hook returns at its
// ctx deadline even when the compactor does not listen; the abandoned call
// finishes in the background, its result unused, and Close waits for it.
func TestHookReturnsAtDeadlineWhenCompactorIgnoresCtx(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := &ppCompactor{gate: make(chan struct{}), deaf: true}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2, TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	in := ppConv("task-0", 3)
	st := &hooks.State{Messages: in}
	start := time.Now()
	_, err = h.Decide(ctx, st)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Decide = %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Decide returned after %v with a 50ms deadline", took)
	}
	if len(st.Messages) != len(in) {
		t.Fatal("State.Messages changed although the run's ctx ended")
	}
	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	if err := h.Close(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with the compactor still blocked = %v, want context.DeadlineExceeded", err)
	}
	close(c.gate)
	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("Close once the compactor returned = %v", err)
	}
}

// TestCloseCancelsPreparedJobs: Close cancels a running prepared job and
// waits for it; afterwards the hook compacts synchronously and prepares
// nothing.
func TestCloseCancelsPreparedJobs(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := &ppCompactor{gate: make(chan struct{})} // returns when ctx ends
	h := ppHook(t, c, nil)
	msgs := ppConv("task-0", 4)
	if _, err := h.Decide(context.Background(), &hooks.State{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h.e.Jobs.Running() != 0 || h.e.Jobs.Len() != 0 {
		t.Fatalf("after Close: %d running, %d kept", h.e.Jobs.Running(), h.e.Jobs.Len())
	}
	close(c.gate)
	if _, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv("task-1", 4)}); err != nil {
		t.Fatal(err)
	}
	if n := len(c.callsNow()); n != 1 {
		t.Fatalf("%d compactor calls, want none prepared after Close", n)
	}
	r, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv("task-1", 6)})
	if err != nil || !r.Compacted {
		t.Fatalf("after Close: err=%v compacted=%v, want a synchronous compaction", err, r.Compacted)
	}
}

// TestPreparedCallbacks: a compaction prepared in the background is
// isolated from the run's callback handlers like a synchronous one (the
// summarizer's model call never reaches them), and the call that applies
// it reports it to them as a compaction with Report.Prepared.
func TestPreparedCallbacks(t *testing.T) {
	t.Parallel()
	seen := &seenCallbacks{}
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "agent"}, seen.handler())
	inner := &ppCompactor{}
	probe := CompactorFunc(func(ctx context.Context, msgs []*schema.Message, target int, tc TokenCounter) ([]*schema.Message, error) {
		callbacks.OnStart(callbacks.ReuseHandlers(ctx, &callbacks.RunInfo{Name: "summarizer", Component: components.ComponentOfChatModel}), "probe")
		return inner.Compact(ctx, msgs, target, tc)
	})
	h := ppHook(t, probe, nil)
	msgs := ppConv("task-0", 4)
	if _, err := h.Decide(ctx, &hooks.State{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	ppWaitPrepared(t, h, msgs)
	r, err := h.Decide(ctx, &hooks.State{Messages: ppStep(ppStep(msgs, "task-0", 4), "task-0", 5)})
	if err != nil || !r.Prepared {
		t.Fatalf("err=%v prepared=%v", err, r.Prepared)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	want := []string{"start:" + string(ComponentCompaction), "end:" + string(ComponentCompaction)}
	if !slices.Equal(seen.events, want) {
		t.Fatalf("the run's handlers saw %v, want %v", seen.events, want)
	}
	if seen.report == nil || !seen.report.Prepared {
		t.Fatalf("OnEnd report %+v, want one with Prepared", seen.report)
	}
}
