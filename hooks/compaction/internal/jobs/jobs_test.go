package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// tjob is a hook's job type as the tests need it: nothing but the Job.
type tjob struct{ *Job }

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

func newT(snapshot []*schema.Message, started time.Time) *tjob {
	return &tjob{NewJob(snapshot, started)}
}

// conv is a conversation on the shared system prompt: the task, then one
// assistant reply per step.
func conv(task string, steps ...string) []*schema.Message {
	out := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage(task)}
	for _, s := range steps {
		out = append(out, schema.AssistantMessage(s, nil))
	}
	return out
}

// copied returns new message values with the same content.
func copied(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		c := *m
		out[i] = &c
	}
	return out
}

func TestAnchorSkipsSystemMessages(t *testing.T) {
	t.Parallel()
	a := conv("task", "one")
	if got := AnchorOf(a); got != a[1] {
		t.Fatalf("AnchorOf = %v, want the task", got)
	}
	if got := AnchorOf([]*schema.Message{schema.SystemMessage("rules"), nil}); got != nil {
		t.Fatalf("AnchorOf of system messages only = %v, want nil", got)
	}
	if _, ok := Anchor(a[:1]); ok {
		t.Fatal("Anchor of a system prompt alone is ok")
	}
	ka, _ := Anchor(a)
	kc, _ := Anchor(copied(a))
	kb, _ := Anchor(conv("other"))
	if ka != kc || ka == kb {
		t.Fatalf("anchors: same content equal %v, other task differs %v", ka == kc, ka != kb)
	}
}

// TestSetFindsTheConversationsJob: a prepared job is found by a
// conversation that begins with its snapshot, by pointer or by content, and
// by no other; take removes it.
func TestSetFindsTheConversationsJob(t *testing.T) {
	t.Parallel()
	snap := conv("task", "one")
	tests := []struct {
		name  string
		msgs  []*schema.Message
		found bool
	}{
		{"the snapshot grown by a step", append(snap[:len(snap):len(snap)], schema.AssistantMessage("two", nil)), true},
		{"the snapshot copied by a middleware", copied(snap), true},
		{"rewritten since", conv("task", "changed"), false},
		{"shorter than the snapshot", snap[:2], false},
		{"another task", conv("other", "one"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewSet[*tjob]()
			j := newT(snap, t0)
			if ok, _, _ := s.Add(j, t0); !ok {
				t.Fatal("Add refused the first job")
			}
			if got, _ := s.Find(tc.msgs, false, t0); (got == j) != tc.found || (got != nil && got != j) {
				t.Fatalf("Find = %v, want found %v", got, tc.found)
			}
			got, _ := s.Find(tc.msgs, true, t0)
			if want := map[bool]int{true: 0, false: 1}[tc.found]; s.Len() != want || (got == j) != tc.found {
				t.Fatalf("after take: %d kept, want %d", s.Len(), want)
			}
		})
	}
}

// TestSetAddRefusesSecondJob: a conversation has one prepared job at a time,
// and a closed set takes none.
func TestSetAddRefusesSecondJob(t *testing.T) {
	t.Parallel()
	s := NewSet[*tjob]()
	first := newT(conv("task", "one"), t0)
	if ok, _, _ := s.Add(first, t0); !ok {
		t.Fatal("Add refused the first job")
	}
	if ok, _, _ := s.Add(newT(conv("task", "one", "two"), t0), t0); ok {
		t.Fatal("Add took a second job for a conversation that begins with the first's snapshot")
	}
	if ok, _, _ := s.Add(newT(conv("other", "one"), t0), t0); !ok {
		t.Fatal("Add refused another conversation's job")
	}
	if _, err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := s.Add(newT(conv("third"), t0), t0); ok {
		t.Fatal("a closed set took a job")
	}
}

// TestSetExpiresOldJobs: a job older than MaxAge is returned as expired by
// Find on its conversation and by Add on any other.
func TestSetExpiresOldJobs(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"Find", "Add"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			s := NewSet[*tjob]()
			s.MaxAge = time.Minute
			old := newT(conv("old", "one"), t0)
			s.Add(old, t0)
			later := t0.Add(time.Minute + time.Nanosecond)
			var expired []*tjob
			if via == "Find" {
				var found *tjob
				found, expired = s.Find(old.Snapshot, false, later)
				if found != nil {
					t.Fatal("Find returned an expired job")
				}
			} else {
				_, expired, _ = s.Add(newT(conv("new"), later), later)
			}
			if len(expired) != 1 || expired[0] != old {
				t.Fatalf("expired %v, want the old job", expired)
			}
			if n, anchors, listed := s.Sizes(); listed != n || anchors != n || n != map[string]int{"Find": 0, "Add": 1}[via] {
				t.Fatalf("count %d, %d anchors, %d listed after expiry", n, anchors, listed)
			}
		})
	}
}

// TestSetEvictsOldestFinished: a full set makes room by dropping its oldest
// finished job, and refuses while every job still runs.
func TestSetEvictsOldestFinished(t *testing.T) {
	t.Parallel()
	s := NewSet[*tjob]()
	s.MaxJobs = 2
	a, b := newT(conv("a"), t0), newT(conv("b"), t0.Add(time.Second))
	s.Add(a, t0)
	s.Add(b, t0)
	if ok, _, evicted := s.Add(newT(conv("c"), t0), t0); ok || evicted != nil {
		t.Fatalf("Add with every job running: ok %v, evicted %v", ok, evicted)
	}
	b.Finish()
	a.Finish()
	ok, _, evicted := s.Add(newT(conv("c"), t0), t0)
	if !ok || evicted != a {
		t.Fatalf("Add into a full set: ok %v, evicted %v, want the oldest finished", ok, evicted)
	}
	if got := s.Kept(a.anchor(t)); len(got) != 0 || s.Len() != 2 {
		t.Fatalf("after eviction: %d jobs of a kept, %d in all", len(got), s.Len())
	}
}

func (j *tjob) anchor(t *testing.T) [32]byte {
	k, ok := Anchor(j.Snapshot)
	if !ok {
		t.Fatal("no anchor")
	}
	return k
}

// TestSetCloseCancelsAndWaits: Close cancels background work, not
// synchronous work, waits for both, and returns the prepared jobs; a closed
// set runs nothing more.
func TestSetCloseCancelsAndWaits(t *testing.T) {
	t.Parallel()
	s := NewSet[*tjob]()
	kept := newT(conv("kept"), t0)
	s.Add(kept, t0)
	bg, cancelBG := context.WithCancel(context.Background())
	release := make(chan struct{})
	syncDone := make(chan struct{})
	if !s.Go(cancelBG, func() { <-bg.Done() }) {
		t.Fatal("Go refused on an open set")
	}
	if !s.Go(nil, func() { <-release; close(syncDone) }) {
		t.Fatal("Go refused on an open set")
	}
	gone, stop := context.WithCancel(context.Background())
	stop()
	if _, err := s.Close(gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close with an ended ctx while a job runs: %v", err)
	}
	// Close cancels background work on its own goroutine (context.AfterFunc):
	// without the cancel this waits until the test times out.
	<-bg.Done()
	close(release)
	dropped, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-syncDone:
	default:
		t.Fatal("Close returned before the synchronous job ended")
	}
	if len(dropped) != 0 || s.Len() != 0 || s.Running() != 0 || !s.Closed() {
		t.Fatalf("second Close: %d dropped, %d kept, %d running, closed %v", len(dropped), s.Len(), s.Running(), s.Closed())
	}
	if s.Go(nil, func() { t.Error("a closed set ran work") }) {
		t.Fatal("Go on a closed set returned true")
	}
}

// TestSetCloseDropsPrepared: the first Close returns every prepared job.
func TestSetCloseDropsPrepared(t *testing.T) {
	t.Parallel()
	s := NewSet[*tjob]()
	a := newT(conv("a"), t0)
	s.Add(a, t0)
	dropped, err := s.Close(context.Background())
	if err != nil || len(dropped) != 1 || dropped[0] != a || s.Len() != 0 {
		t.Fatalf("Close: err %v, dropped %v, %d kept", err, dropped, s.Len())
	}
}

// TestSetWaitWaitsForPrepared: Wait returns once every prepared job has
// finished, or with ctx's error.
func TestSetWaitWaitsForPrepared(t *testing.T) {
	t.Parallel()
	s := NewSet[*tjob]()
	a := newT(conv("a"), t0)
	s.Add(a, t0)
	gone, stop := context.WithCancel(context.Background())
	stop()
	if err := s.Wait(gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a running job with an ended ctx: %v", err)
	}
	a.Finish()
	if err := s.Wait(gone); err != nil {
		t.Fatalf("Wait with every job finished: %v", err)
	}
}

// TestAwaited: the ctx of a job carries a channel closed by Await; any other
// ctx a closed one.
func TestAwaited(t *testing.T) {
	t.Parallel()
	select {
	case <-Awaited(context.Background()):
	default:
		t.Fatal("Awaited outside a job is open")
	}
	j := NewJob(nil, t0)
	ctx := j.WithAwaited(context.Background())
	select {
	case <-Awaited(ctx):
		t.Fatal("Awaited closed before Await")
	default:
	}
	j.Await()
	j.Await()
	<-Awaited(ctx)
	if j.Finished() {
		t.Fatal("a job not finished reports Finished")
	}
	j.Finish()
	if !j.Finished() {
		t.Fatal("a finished job does not report Finished")
	}
}
