package share

import (
	"context"
	"errors"
	"time"
)

// ErrLeaseLost is the value of compaction.ErrLeaseLost: a lease that
// expired, whose key's lease or entry is no longer the caller's.
var ErrLeaseLost = errors.New("compaction: store lease lost")

// Lease mirrors compaction.Lease (the same fields, so the two convert):
// the right to publish under Key, proved by Token; the zero Lease holds
// nothing.
type Lease struct {
	Key   string
	Token string
}

// Held reports whether l holds a lease.
func (l Lease) Held() bool { return l.Token != "" }

// Timing is when a lease's holder talks to the store: every call bounded
// by Timeout, a lease living Liveness without renewal, held at most Lease
// in all.
type Timing struct {
	Timeout  time.Duration
	Liveness time.Duration
	Lease    time.Duration
}

// End calls try (one attempt at publishing under a lease, or ending it)
// until it succeeds or reports ErrLeaseLost, or Liveness has passed: past
// that the lease has expired by itself, unless the renewals get through,
// and then so does a try. Each try runs on values without its
// cancellation, bounded by Timeout (a run that ended must not strand the
// others); a failed one is tried again Timeout later. It returns the
// number of tries and the last one's error.
func (t Timing) End(values context.Context, try func(context.Context) error) (tries int, err error) {
	values = context.WithoutCancel(values)
	until := time.Now().Add(t.Liveness)
	for {
		ctx, cancel := context.WithTimeout(values, t.Timeout)
		err := try(ctx)
		cancel()
		tries++
		if err == nil || errors.Is(err, ErrLeaseLost) || !time.Now().Add(t.Timeout).Before(until) {
			return tries, err
		}
		time.Sleep(t.Timeout)
	}
}

// Hold calls renew every third of Liveness until stop is called or Lease
// has passed since started; stop returns once no renewal runs. Each
// renewal runs on values bounded by Timeout. A renewal that fails is tried
// again at the next tick: the lease outlives one missed renewal; failed
// hears of the first such failure. A lease found lost (ErrLeaseLost) is not
// renewed again.
func (t Timing) Hold(values context.Context, started time.Time, renew func(context.Context) error, failed func(error)) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(t.Liveness / 3)
		defer tick.Stop()
		until := started.Add(t.Lease)
		reported := false
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				if !now.Before(until) {
					return // held at most Lease; waiters stop at their own bound
				}
			}
			ctx, cancel := context.WithTimeout(values, t.Timeout)
			err := renew(ctx)
			cancel()
			switch {
			case errors.Is(err, ErrLeaseLost):
				return
			case err != nil && !reported:
				reported = true
				failed(err)
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}
