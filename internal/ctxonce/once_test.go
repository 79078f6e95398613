package ctxonce

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoRunsUntilFirstSuccess(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name     string
		results  []error // what fn returns on each of its calls
		calls    int     // Do calls made
		wantRuns int
		wantLast error
		wantDone bool
	}{
		{"success runs once", []error{nil}, 3, 1, nil, true},
		{"failure is retried", []error{boom, nil}, 3, 2, nil, true},
		{"failures are all reported", []error{boom, boom}, 2, 2, boom, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var o Once
			runs := 0
			var last error
			for range tt.calls {
				last = o.Do(context.Background(), func(context.Context) error {
					err := tt.results[min(runs, len(tt.results)-1)]
					runs++
					return err
				})
			}
			if runs != tt.wantRuns || !errors.Is(last, tt.wantLast) || o.Done() != tt.wantDone {
				t.Errorf("runs %d, last %v, done %v; want %d, %v, %v", runs, last, o.Done(), tt.wantRuns, tt.wantLast, tt.wantDone)
			}
		})
	}
}

// TestWaiterHonoursCtx: while one call's action blocks, another caller with
// an expired ctx returns its ctx error at once, and later callers see the
// success without running the action again.
func TestWaiterHonoursCtx(t *testing.T) {
	t.Parallel()
	var o Once
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	fn := func(context.Context) error {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
		return nil
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := o.Do(context.Background(), fn); err != nil {
			t.Errorf("first call: %v", err)
		}
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := o.Do(ctx, fn); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting call returned %v, want context.DeadlineExceeded", err)
	}
	close(release)
	wg.Wait()
	if err := o.Do(context.Background(), fn); err != nil || runs.Load() != 1 {
		t.Errorf("after success: err %v, %d runs, want nil and 1", err, runs.Load())
	}
}
