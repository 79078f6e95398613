package retry

import (
	"context"
	"database/sql/driver"
	"errors"
	"math/rand/v2"
	"time"

	"example.com/ledgerd/internal/store"
)

// Policy says how often and how patiently a write is retried.
type Policy struct {
	MaxAttempts          int           // total attempts, including the first
	BaseDelay            time.Duration // delay before the second attempt
	MaxDelay             time.Duration // cap on any delay
	RetryOnCommitUnknown bool          // retry when the commit outcome is unknown (LED-398)
}

// Do calls fn until it succeeds, fails with an error that is not retryable,
// the attempts run out, or ctx is done.
func Do(ctx context.Context, p Policy, fn func() error) error {
	var err error
	for attempt := 1; attempt <= p.MaxAttempts; attempt++ {
		if err = fn(); err == nil {
			return nil
		}
		if !p.retryable(err) || attempt == p.MaxAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.delay(attempt)):
		}
	}
	return err
}

// retryable reports whether err is worth another attempt.
func (p Policy) retryable(err error) bool {
	switch {
	case errors.Is(err, driver.ErrBadConn):
		return true
	case errors.Is(err, store.ErrCommitUnknown):
		// The first attempt may have committed; retrying is only safe when
		// the write is idempotent at the database level.
		return p.RetryOnCommitUnknown
	default:
		return false
	}
}

// delay is exponential with full jitter: a random duration in
// [0, min(MaxDelay, BaseDelay*2^(attempt-1))).
func (p Policy) delay(attempt int) time.Duration {
	d := p.BaseDelay << (attempt - 1)
	if d > p.MaxDelay || d <= 0 {
		d = p.MaxDelay
	}
	return time.Duration(rand.Int64N(int64(d)))
}
