package failover

import (
	"sync"
	"time"
)

// DefaultCoolDown is how long a candidate that failed every try of a call is
// skipped when Config.CoolDown is 0.
const DefaultCoolDown = time.Minute

// breaker is one candidate's circuit breaker. Closed, every call tries the
// candidate. A call in which every try failed opens it: for the cool-down,
// calls skip the candidate without calling it. After the cool-down one call
// probes it with a single try (no retries) while concurrent calls keep
// skipping it; a success closes the breaker, a failure opens it for another
// cool-down. Retrying a dead endpoint on every compaction costs each one the
// full backoff and a warning per try.
type breaker struct {
	mu       sync.Mutex
	openTill time.Time // zero: closed
	probing  bool      // a probe call is running
	stats    CandidateStats
}

// verdict is what the breaker allows one call to do.
type verdict int

const (
	tryFully verdict = iota // closed: up to 1+Retries tries
	tryOnce                 // half-open: one probe try
	skip                    // open: no call
)

// admit decides what a call at now may do, and counts a skip.
func (b *breaker) admit(now time.Time) verdict {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.openTill.IsZero():
		return tryFully
	case now.Before(b.openTill) || b.probing:
		b.stats.Skipped++
		return skip
	default:
		b.probing = true
		return tryOnce
	}
}

// succeeded closes the breaker; it reports whether it was open, so the
// recovery is said once.
func (b *breaker) succeeded() (wasOpen bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasOpen = !b.openTill.IsZero()
	b.openTill, b.probing = time.Time{}, false
	b.stats.Replies++
	return wasOpen
}

// failed opens the breaker until now+coolDown after a call whose every try
// failed (a cool-down <= 0 keeps it closed); it reports whether it was closed
// before, so the outage is said once.
func (b *breaker) failed(now time.Time, coolDown time.Duration) (wasClosed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasClosed = b.openTill.IsZero()
	b.probing = false
	if coolDown > 0 {
		b.openTill = now.Add(coolDown)
	}
	return wasClosed
}

// abandoned ends a call that stopped for its ctx, not for the candidate:
// the breaker stays as it was, and a probe may run again.
func (b *breaker) abandoned() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
}

// attemptFailed counts one failed try.
func (b *breaker) attemptFailed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stats.FailedAttempts++
}

// CandidateStats says what one candidate of a chain did since the chain was
// built: which summarizer wrote how many replies.
type CandidateStats struct {
	Name           string // the candidate's Name
	Replies        int    // replies it wrote (each one a summary, when the chain is a summarizer)
	FailedAttempts int    // tries that failed
	Skipped        int    // calls that skipped it while its breaker was open
}

// Stats returns each candidate's counts, in the chain's order.
func (m *Model) Stats() []CandidateStats {
	out := make([]CandidateStats, len(m.cfg.Candidates))
	for i, c := range m.cfg.Candidates {
		b := &m.breakers[i]
		b.mu.Lock()
		out[i] = b.stats
		b.mu.Unlock()
		out[i].Name = c.Name
	}
	return out
}
