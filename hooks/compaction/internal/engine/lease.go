package engine

import (
	"context"
	"errors"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

// leaseTiming is when a lease's holder talks to the store: every call bounded
// by Timeout, a lease living Liveness without renewal, held at most Lease
// in all.
type leaseTiming struct {
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
func (t leaseTiming) End(values context.Context, try func(context.Context) error) (tries int, err error) {
	values = context.WithoutCancel(values)
	until := time.Now().Add(t.Liveness)
	for {
		ctx, cancel := context.WithTimeout(values, t.Timeout)
		err := try(ctx)
		cancel()
		tries++
		if err == nil || errors.Is(err, share.ErrLeaseLost) || !time.Now().Add(t.Timeout).Before(until) {
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
func (t leaseTiming) Hold(values context.Context, started time.Time, renew func(context.Context) error, failed func(error)) (stop func()) {
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
			case errors.Is(err, share.ErrLeaseLost):
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
