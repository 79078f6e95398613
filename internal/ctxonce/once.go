// Package ctxonce runs a warm-up style action once, like sync.Once, except
// that a failure is not remembered (the next call tries again) and a caller
// waiting for another's attempt stops waiting when its ctx ends.
package ctxonce

import (
	"context"
	"sync"
	"sync/atomic"
)

// Once runs an action until it first succeeds. The zero value is ready to
// use; a Once must not be copied after first use.
type Once struct {
	init sync.Once
	// token is held by the caller running the action: waiting for it is a
	// select, which a mutex could not offer.
	token chan struct{}
	done  atomic.Bool
}

// Do runs fn(ctx) unless an earlier call succeeded. One call runs fn at a
// time; the others wait for it and then return nil if it succeeded, or try
// themselves if it failed. A caller whose ctx ends while it waits returns
// ctx.Err() at once; fn itself is responsible for honouring ctx while it runs.
func (o *Once) Do(ctx context.Context, fn func(context.Context) error) error {
	if o.done.Load() {
		return nil
	}
	o.init.Do(func() { o.token = make(chan struct{}, 1) })
	select {
	case o.token <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-o.token }()
	if o.done.Load() {
		return nil
	}
	if err := fn(ctx); err != nil {
		return err
	}
	o.done.Store(true)
	return nil
}

// Done reports whether an action succeeded.
func (o *Once) Done() bool { return o.done.Load() }
