package jobs

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// Keeper is the hook's job type: a comparable value (a pointer) that
// embeds a *Job.
type Keeper interface {
	comparable
	Base() *Job
}

// Bounds of what a hook keeps for prepared compactions, so that a server
// holding thousands of conversations does not grow without limit. A job
// beyond either is dropped (cancelled if still running) and its
// conversation compacts synchronously when it reaches the trigger.
const (
	// DefaultMaxJobs is how many prepared compactions, running or
	// finished and not yet used, one hook keeps at a time.
	DefaultMaxJobs = 256
	// DefaultMaxAge is how long a prepared compaction is kept for its
	// conversation after it started.
	DefaultMaxAge = 10 * time.Minute
)

// Set tracks a hook's running jobs and its prepared compactions.
type Set[J Keeper] struct {
	// MaxJobs and MaxAge bound the prepared jobs (DefaultMaxJobs,
	// DefaultMaxAge); set them before the set is used.
	MaxJobs int
	MaxAge  time.Duration

	life context.Context // cancelled by Close; every background job's cancel runs with it
	stop context.CancelFunc

	mu      sync.Mutex
	closed  bool
	running int
	idle    chan struct{} // made by Close, closed when no job runs any more
	// prepared holds the background jobs by the content digest of the
	// first non-system message of their snapshot, which a conversation that
	// still begins with the snapshot has at the same place: a lookup costs
	// one map access and a prefix check per conversation sharing that
	// message. By content, not pointer, so that a middleware copying every
	// message before each call still finds its conversation's job.
	prepared map[digest.Sum][]J
	count    int
}

// NewSet returns an empty open set with the default bounds.
func NewSet[J Keeper]() *Set[J] {
	life, stop := context.WithCancel(context.Background())
	return &Set[J]{life: life, stop: stop, prepared: map[digest.Sum][]J{},
		MaxJobs: DefaultMaxJobs, MaxAge: DefaultMaxAge}
}

// Go runs work on its own goroutine, counted as running until it returns.
// A non-nil cancel is called when the set is closed (Close cancels prepared
// jobs only: a synchronous job is what a live run waits for, and Close waits
// for it instead). It returns false, running nothing, once the set is
// closed.
func (s *Set[J]) Go(cancel context.CancelFunc, work func()) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.running++
	s.mu.Unlock()
	stop := func() bool { return false }
	if cancel != nil {
		stop = context.AfterFunc(s.life, cancel)
	}
	go func() {
		defer s.finished()
		defer stop()
		work()
	}()
	return true
}

func (s *Set[J]) finished() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	if s.closed && s.running == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// Close closes the set, cancels every background job and waits until every
// job's goroutine ended or ctx is done. Prepared jobs are returned in
// dropped, for the caller to cancel.
func (s *Set[J]) Close(ctx context.Context) (dropped []J, err error) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		for _, list := range s.prepared {
			dropped = append(dropped, list...)
		}
		clear(s.prepared)
		s.count = 0
	}
	s.stop()
	if s.running == 0 {
		s.mu.Unlock()
		return dropped, nil
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return dropped, nil
	case <-ctx.Done():
		return dropped, fmt.Errorf("compaction: %d compactor calls still running: %w", s.Running(), ctx.Err())
	}
}

// Closed reports whether Close has been called.
func (s *Set[J]) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Running returns how many jobs run now.
func (s *Set[J]) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Len returns how many prepared jobs the set keeps.
func (s *Set[J]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// Sizes returns, read at once, how many prepared jobs the set counts, how
// many anchors it files them under and how many jobs those lists hold.
func (s *Set[J]) Sizes() (count, anchors, listed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.prepared {
		listed += len(l)
	}
	return s.count, len(s.prepared), listed
}

// Kept returns the prepared jobs filed under anchor, expired or not.
func (s *Set[J]) Kept(anchor digest.Sum) []J {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.prepared[anchor])
}

// Wait waits until every prepared job the set keeps now has finished, or
// ctx ends (it returns ctx.Err() then).
func (s *Set[J]) Wait(ctx context.Context) error {
	s.mu.Lock()
	var running []J
	for _, list := range s.prepared {
		for _, j := range list {
			if !j.Base().Finished() {
				running = append(running, j)
			}
		}
	}
	s.mu.Unlock()
	for _, j := range running {
		select {
		case <-j.Base().Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Find returns the prepared job whose snapshot messages begins with, if
// any. With take it also removes it, so that only one run uses a result.
// Jobs older than MaxAge are dropped on the way and returned in expired.
func (s *Set[J]) Find(messages []*schema.Message, take bool, now time.Time) (found J, expired []J) {
	var none J
	anchor, ok := Anchor(messages)
	if !ok {
		return none, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.prepared[anchor]
	kept := list[:0]
	for _, j := range list {
		switch {
		case now.Sub(j.Base().Started) > s.MaxAge:
			expired = append(expired, j)
			continue
		case found == none && hasPrefix(messages, j.Base().Snapshot):
			found = j
			if take {
				continue
			}
		}
		kept = append(kept, j)
	}
	clear(list[len(kept):])
	s.count -= len(list) - len(kept)
	if len(kept) == 0 {
		delete(s.prepared, anchor)
	} else {
		s.prepared[anchor] = kept
	}
	return found, expired
}

// Remove takes j out of the prepared jobs. It returns false when j was no
// longer there (a model call took it, or it expired or was pushed out).
func (s *Set[J]) Remove(j J) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeLocked(j)
}

// removeLocked is Remove with s.mu held.
func (s *Set[J]) removeLocked(j J) bool {
	anchor, _ := Anchor(j.Base().Snapshot)
	list := s.prepared[anchor]
	i := slices.Index(list, j)
	if i < 0 {
		return false
	}
	list = slices.Delete(list, i, i+1)
	if len(list) == 0 {
		delete(s.prepared, anchor)
	} else {
		s.prepared[anchor] = list
	}
	s.count--
	return true
}

// Add registers a prepared job unless one for the same conversation exists
// or the set is closed. It first removes every job older than MaxAge
// (expired), so that a job whose conversation never calls the hook again
// does not outlive it (Find only sees the jobs of the conversation it looks
// up); when the set is still full it removes the oldest finished job
// (evicted), and with every slot held by a running job it refuses. The
// caller cancels what was removed, whether or not j was added.
func (s *Set[J]) Add(j J, now time.Time) (ok bool, expired []J, evicted J) {
	var none J
	anchor, ok := Anchor(j.Base().Snapshot)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !ok {
		return false, nil, none
	}
	expired = s.expireLocked(now)
	for _, other := range s.prepared[anchor] {
		if hasPrefix(j.Base().Snapshot, other.Base().Snapshot) {
			return false, expired, none
		}
	}
	if s.count >= s.MaxJobs {
		if evicted = s.oldestFinishedLocked(); evicted == none {
			return false, expired, none
		}
	}
	s.prepared[anchor] = append(s.prepared[anchor], j)
	s.count++
	return true, expired, evicted
}

// expireLocked removes every job older than MaxAge and returns them.
func (s *Set[J]) expireLocked(now time.Time) []J {
	var out []J
	for anchor, list := range s.prepared {
		kept := list[:0]
		for _, j := range list {
			if now.Sub(j.Base().Started) > s.MaxAge {
				out = append(out, j)
				continue
			}
			kept = append(kept, j)
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(s.prepared, anchor)
		} else {
			s.prepared[anchor] = kept
		}
	}
	s.count -= len(out)
	return out
}

// oldestFinishedLocked removes the finished job that started first and
// returns it, or returns the zero J when every job still runs.
func (s *Set[J]) oldestFinishedLocked() J {
	var oldest J
	var none J
	for _, list := range s.prepared {
		for _, j := range list {
			if j.Base().Finished() && (oldest == none || j.Base().Started.Before(oldest.Base().Started)) {
				oldest = j
			}
		}
	}
	if oldest == none {
		return none
	}
	s.removeLocked(oldest)
	return oldest
}
