package compaction

import (
	"context"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// dfWindow is the window of the deferral tests: with the default fractions
// the hook prepares at 4500 tokens, triggers at 7000 and its ceiling is 8500.
const dfWindow = 10000

// dfCompactor is a ppCompactor whose calls block until release is closed
// (or their ctx ends); it hands each call's ctx to ctxs, so that a test can
// see through Awaited when the hook waits for it.
type dfCompactor struct {
	*ppCompactor
	ctxs chan context.Context
}

func newDfCompactor() dfCompactor {
	return dfCompactor{ppCompactor: &ppCompactor{gate: make(chan struct{})}, ctxs: make(chan context.Context, 8)}
}

func (c dfCompactor) Compact(ctx context.Context, msgs []*schema.Message, target int, tc TokenCounter) ([]*schema.Message, error) {
	c.ctxs <- ctx
	return c.ppCompactor.Compact(ctx, msgs, target, tc)
}

// dfHook returns a hook over c with the default CompactAt and CompactTo,
// PrepareAt 0.45, and the Report of every prepared compaction that finished
// sent to done.
func dfHook(t *testing.T, c Compactor, done chan<- PreparedDone) *CompactionHook {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: dfWindow, PrepareAt: 0.45,
		TokenCounter: fc1, Logger: discardLogger(), OnPrepared: func(_ context.Context, d PreparedDone) { done <- d }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// dfGrow appends to a copy of msgs one tool step whose result brings the
// conversation to exactly tokens.
func dfGrow(t *testing.T, msgs []*schema.Message, id string, tokens int) []*schema.Message {
	t.Helper()
	out := append(msgs[:len(msgs):len(msgs)], call(id), result(id, ""))
	n := tokens - count(fc1, out...)
	if n < 0 {
		t.Fatalf("the conversation is %d tokens already, want %d", count(fc1, out...), tokens)
	}
	out[len(out)-1] = result(id, rep("x", n))
	if got := count(fc1, out...); got != tokens {
		t.Fatalf("grew to %d tokens, want %d", got, tokens)
	}
	return out
}

// dfDecide runs h.Decide on state and fails the test if it has not returned
// after a generous delay: the compactor is blocked, so a hook waiting for it
// would never return.
func dfDecide(t *testing.T, h *CompactionHook, state *hooks.State) Report {
	t.Helper()
	type out struct {
		r   Report
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := h.Decide(context.Background(), state)
		ch <- out{r, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.r
	case <-time.After(10 * time.Second):
		t.Fatal("Decide waited for the prepared compaction")
		return Report{}
	}
}

// dfPrepare has h start preparing the compaction of a conversation of about
// 5000 tokens, most of it in a tool result the compaction summarizes, and
// returns that conversation and the ctx of the compactor's call.
func dfPrepare(t *testing.T, h *CompactionHook, c dfCompactor) ([]*schema.Message, context.Context) {
	t.Helper()
	msgs := ppStep(dfGrow(t, ppConv("task-0", 4), "prep", 4800), "task-0", 4)
	r := dfDecide(t, h, &hooks.State{Messages: msgs})
	if r.Triggered || !r.Preparing {
		t.Fatalf("at PrepareAt: triggered=%v preparing=%v, want a compaction prepared", r.Triggered, r.Preparing)
	}
	return msgs, <-c.ctxs
}

// TestDeferredBelowCeiling: while the prepared compaction is still being
// written, a call at or above CompactAt and below the ceiling goes out
// uncompacted at once; from the ceiling on, the call waits for it (and
// Awaited tells the compactor so), then applies it.
func TestDeferredBelowCeiling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tokens int
		defers bool
	}{
		{"at CompactAt", 7000, true},
		{"just below the ceiling", 8499, true},
		{"at the ceiling", 8500, false},
		{"above the ceiling", 9500, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newDfCompactor()
			h := dfHook(t, c, make(chan PreparedDone, 4))
			msgs, jobCtx := dfPrepare(t, h, c)
			now := dfGrow(t, msgs, "jump", tt.tokens)
			st := &hooks.State{Messages: now}
			if tt.defers {
				r := dfDecide(t, h, st)
				if !r.Triggered || !r.Deferred || r.Compacted || r.Prepared || r.Stall != 0 {
					t.Fatalf("report %+v, want triggered, deferred, not compacted, no stall", r)
				}
				if !sameSlice(st.Messages, now) || len(c.callsNow()) != 1 {
					t.Fatalf("messages changed or the compactor was called again (%d calls)", len(c.callsNow()))
				}
				select {
				case <-Awaited(jobCtx):
					t.Fatal("Awaited closed: nobody waits for the prepared compaction")
				default:
				}
				return
			}
			type out struct {
				r   Report
				err error
			}
			ch := make(chan out, 1)
			go func() {
				r, err := h.Decide(context.Background(), st)
				ch <- out{r, err}
			}()
			select {
			case <-Awaited(jobCtx):
			case o := <-ch:
				t.Fatalf("Decide returned %+v (err %v) while the prepared compaction was still running", o.r, o.err)
			case <-time.After(10 * time.Second):
				t.Fatal("the hook did not wait for the prepared compaction")
			}
			close(c.gate)
			o := <-ch
			if o.err != nil {
				t.Fatal(o.err)
			}
			if !o.r.Prepared || !o.r.Compacted || o.r.Deferred || o.r.Stall <= 0 {
				t.Fatalf("report %+v, want the prepared compaction applied after a stall", o.r)
			}
			if err := shape.NewFaults(now, st.Messages); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDeferredThenApplied: after a deferred call, the first call at the
// trigger once the prepared compaction finished applies it, keeping the
// messages appended since its snapshot; OnPrepared says when it finished.
func TestDeferredThenApplied(t *testing.T) {
	t.Parallel()
	c := newDfCompactor()
	done := make(chan PreparedDone, 4)
	h := dfHook(t, c, done)
	msgs, _ := dfPrepare(t, h, c)
	mid := dfGrow(t, msgs, "a", 7500)
	if r := dfDecide(t, h, &hooks.State{Messages: mid}); !r.Deferred {
		t.Fatalf("report %+v, want deferred", r)
	}
	close(c.gate)
	select {
	case d := <-done:
		if d.Step != 0 || d.Err != nil || d.Declined {
			t.Fatalf("OnPrepared got %+v, want the compaction of step 0, written", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnPrepared was not called")
	}
	next := dfGrow(t, mid, "b", 8000)
	st := &hooks.State{Messages: next, StepCount: 2}
	r := dfDecide(t, h, st)
	if !r.Prepared || !r.Compacted || r.Deferred || len(c.callsNow()) != 1 {
		t.Fatalf("report %+v with %d compactor calls, want the prepared compaction applied", r, len(c.callsNow()))
	}
	// Everything appended since the snapshot is kept verbatim, in order.
	tail := next[len(msgs):]
	if got := st.Messages[len(st.Messages)-len(tail):]; !sameSlice(got, tail) {
		t.Fatal("the messages appended since the snapshot were not kept")
	}
	if err := shape.NewFaults(next, st.Messages); err != nil {
		t.Fatal(err)
	}
	if trigger, _ := h.Thresholds(); float64(count(fc1, st.Messages...)) >= trigger {
		t.Fatalf("after applying, the call is %d tokens, trigger %v", count(fc1, st.Messages...), trigger)
	}
}

// TestNotDeferredWithoutJob: a call that reaches CompactAt with no prepared
// compaction of its conversation (it jumped past PrepareAt in one step)
// compacts synchronously, as without PrepareAt.
func TestNotDeferredWithoutJob(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	h := dfHook(t, c, make(chan PreparedDone, 4))
	conv := dfGrow(t, ppConv("task-0", 4), "jump", 7500)
	st := &hooks.State{Messages: conv}
	r := dfDecide(t, h, st)
	// The compacted result may still be above PrepareAt, in which case the
	// next compaction is prepared at once and a second compactor call may
	// already have started; the first call must be the synchronous one, over
	// the whole conversation.
	if err := h.WaitPrepared(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := c.callsNow()
	if r.Deferred || r.Prepared || !r.Compacted || len(calls) == 0 || calls[0].messages != len(conv) {
		t.Fatalf("report %+v with compactor calls %+v, want a synchronous compaction of %d messages", r, calls, len(conv))
	}
	if wantCalls := 1 + btoi(r.Preparing); len(calls) != wantCalls {
		t.Fatalf("%d compactor calls, want %d (preparing: %v)", len(calls), wantCalls, r.Preparing)
	}
}

func sameSlice(a, b []*schema.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPreparedRestInBackground: when the prepared result plus what was
// appended since still reaches the trigger but stays below the ceiling, the
// call goes out with the prepared result applied and the rest is prepared in
// the background instead of compacted now; from the ceiling on, the rest is
// compacted now (TestPreparedTopUp).
func TestPreparedRestInBackground(t *testing.T) {
	t.Parallel()
	c := newDfCompactor()
	done := make(chan PreparedDone, 4)
	h := dfHook(t, c, done)
	msgs, _ := dfPrepare(t, h, c)
	close(c.gate)
	<-done
	// The snapshot's big result is summarized; 7900 tokens appended since
	// keep the merged call between the trigger (7000) and the ceiling.
	now := dfGrow(t, msgs, "big", count(fc1, msgs...)+7900)
	st := &hooks.State{Messages: now, StepCount: 1}
	r := dfDecide(t, h, st)
	after := count(fc1, st.Messages...)
	if trigger, _ := h.Thresholds(); float64(after) < trigger || float64(after) >= h.e.Ceiling() {
		t.Fatalf("the merged call is %d tokens; the test needs it between the trigger %v and the ceiling %v", after, trigger, h.e.Ceiling())
	}
	if !r.Prepared || !r.Compacted || !r.Preparing {
		t.Fatalf("report %+v, want the prepared result applied and the rest being prepared", r)
	}
	select { // dfPrepare took the first call's ctx: this is the rest's

	case ctx := <-c.ctxs:
		if j, _ := h.e.Jobs.Find(st.Messages, false, time.Now()); j == nil {
			t.Fatal("no compaction is prepared for the merged conversation")
		}
		select {
		case <-Awaited(ctx):
			t.Fatal("the rest is awaited: the call waited for it")
		default:
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the rest is not being compacted")
	}
	if err := shape.NewFaults(now, st.Messages); err != nil {
		t.Fatal(err)
	}
}

// TestPreparedAfterCompaction: a compaction that leaves the call at or above
// PrepareAt starts preparing the next one in the same call.
func TestPreparedAfterCompaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		kept      int // tokens of the last tool step, which the compaction keeps
		preparing bool
	}{
		{"left above PrepareAt", 5000, true},
		{"left below PrepareAt", 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &ppCompactor{}
			h := dfHook(t, c, make(chan PreparedDone, 4))
			// No prepared compaction: the call compacts synchronously.
			msgs := dfGrow(t, ppConv("task-0", 4), "old", 7500-tt.kept-200)
			msgs = dfGrow(t, msgs, "kept", 7500)
			st := &hooks.State{Messages: msgs, StepCount: 3}
			r := dfDecide(t, h, st)
			if !r.Compacted || r.Prepared || r.Preparing != tt.preparing {
				t.Fatalf("report %+v (after: %d tokens), want preparing=%v", r, r.TokensAfter, tt.preparing)
			}
			if j, _ := h.e.Jobs.Find(st.Messages, false, time.Now()); (j != nil) != tt.preparing {
				t.Fatalf("prepared job for the compacted conversation: %v, want %v", j != nil, tt.preparing)
			}
		})
	}
}

// TestWaitPrepared: WaitPrepared returns once the prepared compactions
// finished, and with ctx's error when ctx ends first.
func TestWaitPrepared(t *testing.T) {
	t.Parallel()
	c := newDfCompactor()
	h := dfHook(t, c, make(chan PreparedDone, 4))
	msgs, _ := dfPrepare(t, h, c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := h.WaitPrepared(ctx); err == nil {
		t.Fatal("WaitPrepared returned while the compaction was blocked")
	}
	close(c.gate)
	if err := h.WaitPrepared(context.Background()); err != nil {
		t.Fatal(err)
	}
	j, _ := h.e.Jobs.Find(msgs, false, time.Now())
	if j == nil || !j.Finished() {
		t.Fatal("after WaitPrepared the prepared compaction is not finished, or was dropped")
	}
}
