package compaction

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// TestPreparedJobExpiresWithoutItsConversation: the docs promise that
// a prepared result nobody uses is dropped when it is maxAge old. A job whose
// conversation never calls the hook again must not outlive maxAge just
// because the hook holds fewer than maxJobs jobs: its summarizer call would
// keep running (the job's ctx has no deadline, the run's was removed) and its
// snapshot would stay in memory.
func TestPreparedJobExpiresWithoutItsConversation(t *testing.T) {
	t.Parallel()
	// expiring is a hook whose jobs expire after 20 ms, with a compactor
	// that returns only when its ctx ends.
	expiring := func(t *testing.T) *CompactionHook {
		c := &ppCompactor{gate: make(chan struct{})}
		h := ppHook(t, c, nil)
		t.Cleanup(func() { close(c.gate) }) // runs before the hook's Close
		h.e.Jobs.MaxAge = 20 * time.Millisecond
		return h
	}
	t.Run("another conversation prepares", func(t *testing.T) {
		t.Parallel()
		h := expiring(t)
		abandoned := ppConv("abandoned", 4)
		if _, err := h.Decide(context.Background(), &hooks.State{Messages: abandoned}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond)
		if _, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv("other", 4)}); err != nil {
			t.Fatal(err)
		}
		key, _ := jobs.Anchor(abandoned)
		stale := len(h.e.Jobs.Kept(key))
		if stale != 0 {
			t.Fatal("the job older than maxAge is still kept after another conversation prepared")
		}
	})
	t.Run("no other call", func(t *testing.T) {
		t.Parallel()
		h := expiring(t)
		abandoned := ppConv("abandoned", 4)
		if _, err := h.Decide(context.Background(), &hooks.State{Messages: abandoned}); err != nil {
			t.Fatal(err)
		}
		// Read the job from the set, not with find, which drops it once
		// it is past maxAge.
		key, _ := jobs.Anchor(abandoned)
		kept := h.e.Jobs.Kept(key)
		if len(kept) != 1 {
			t.Fatalf("%d jobs prepared for the conversation, want 1", len(kept))
		}
		// The compactor returns only when its ctx ends (its gate opens
		// when the test does), so the job ends only if maxAge cancels it.
		// The bound is a watchdog against a hang, not a measurement.
		select {
		case <-kept[0].Done():
		case <-time.After(30 * time.Second):
			t.Fatal("the job still runs 30 s after its 20 ms maxAge: the summarizer call was not cancelled")
		}
		if !errors.Is(kept[0].Err(), context.DeadlineExceeded) {
			t.Fatalf("the job ended with %v, want its maxAge deadline", kept[0].Err())
		}
	})
}

// TestCloseRacesPrepare: Close while many runs start prepared
// compactions: once Close returned, no job runs, none is kept, no
// OnPrepared call follows, and no goroutine is left.
func TestCloseRacesPrepare(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for round := range 20 {
		var closed atomic.Bool
		var late atomic.Int32
		c := &ppCompactor{hold: time.Millisecond}
		size := func(n int) float64 { return float64(count(fc1, ppConv("task-0", n)...)) }
		window := 2 * size(6)
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: int(window), TokenCounter: fc1, Logger: discardLogger(),
			CompactAt: (size(5) + size(6)) / 2 / window, PrepareAt: (size(3) + size(4)) / 2 / window, CompactTo: size(2) / window,
			OnPrepared: func(context.Context, PreparedDone) {
				if closed.Load() {
					late.Add(1)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				for s := 4; s < 8; s++ {
					st := &hooks.State{Messages: ppConv(fmt.Sprintf("r%d-%d", round, i), s)}
					if _, err := h.Decide(context.Background(), st); err != nil {
						t.Error(err)
					}
				}
			})
		}
		time.Sleep(time.Duration(round%4) * time.Millisecond)
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		closed.Store(true)
		if n := h.e.Jobs.Running(); n != 0 {
			// Runs still compacting synchronously after Close do so inline.
			t.Logf("round %d: %d jobs running after Close", round, n)
		}
		wg.Wait()
		if n := late.Load(); n != 0 {
			t.Fatalf("round %d: OnPrepared called %d times after Close returned", round, n)
		}
		kept := h.e.Jobs.Len()
		if kept != 0 {
			t.Fatalf("round %d: %d prepared jobs kept after Close", round, kept)
		}
	}
}

// TestPreparedJobsBoundedOverManyConversations: thousands of conversations through
// one hook keep at most maxJobs prepared jobs and map entries.
func TestPreparedJobsBoundedOverManyConversations(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	for i := range 3000 {
		if _, err := h.Decide(context.Background(), &hooks.State{Messages: ppConv(fmt.Sprintf("c%d", i), 4)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.WaitPrepared(context.Background()); err != nil {
		t.Fatal(err)
	}
	kept, keys, total := h.e.Jobs.Sizes()
	if kept > jobs.DefaultMaxJobs || keys > jobs.DefaultMaxJobs || total != kept {
		t.Fatalf("count %d, %d keys, %d jobs in the map; want at most %d and count == jobs", kept, keys, total, jobs.DefaultMaxJobs)
	}
}

// TestPreparedJobOnSharedHistoryPrefix: two runs carrying forward the same
// history slice (same pointers) diverge after it. The job prepared on the
// shared part may serve either, since it is a compaction of messages both
// hold; the result must never carry the other run's own messages.
func TestPreparedJobOnSharedHistoryPrefix(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	shared := ppConv("task-0", 4)
	if _, err := h.Decide(context.Background(), &hooks.State{Messages: shared}); err != nil {
		t.Fatal(err)
	}
	ppWaitPrepared(t, h, shared)
	a := ppStep(ppStep(shared, "run-a", 4), "run-a", 5)
	b := ppStep(ppStep(shared, "run-b", 4), "run-b", 5)
	// b comes first and gets the job prepared on the shared part; a, whose
	// conversation also begins with it, then compacts synchronously.
	for i, conv := range [][]*schema.Message{b, a} {
		st := &hooks.State{Messages: conv}
		r, err := h.Decide(context.Background(), st)
		if err != nil || !r.Compacted || r.Prepared != (i == 0) {
			t.Fatalf("run %d: err=%v compacted=%v prepared=%v", i, err, r.Compacted, r.Prepared)
		}
		// The run's own last step is kept verbatim; nothing of the other
		// run's steps is in its conversation.
		if st.Messages[len(st.Messages)-1] != conv[len(conv)-1] || st.Messages[len(st.Messages)-2] != conv[len(conv)-2] {
			t.Fatalf("run %d: its last step was not kept verbatim", i)
		}
		other := map[*schema.Message]bool{}
		for _, m := range [][]*schema.Message{a, b}[i][len(shared):] {
			other[m] = true
		}
		for _, m := range st.Messages {
			if other[m] {
				t.Fatalf("run %d holds a message of the other run", i)
			}
		}
		if err := shape.NewFaults(conv, st.Messages); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.callsNow()); n != 2 {
		t.Fatalf("%d compactor calls, want the prepared one and a's synchronous one", n)
	}
}
