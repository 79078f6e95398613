// Package jobs keeps a hook's background compactions: one job per
// conversation anchor (the conversation's first non-system message), found
// again by the conversation that begins with its snapshot, awaited, expired
// after a maximum age, cancelled when the set closes, and the backoff after a
// failed compaction that holds the next attempt back.
//
// A job here is what the set needs of one: its snapshot, when it started,
// whether it finished, whether a model call waits for it. What the hook
// computes and decides (the compactor's result, the Report, a Store's Lease)
// stays in the hook's own job type, which embeds *Job; Set is generic over
// that type so that this package needs none of it.
//
// It uses only the digest package of hooks/compaction; the hook in
// hooks/compaction calls it.
package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// Job is one call of the compactor on its own goroutine, as a Set knows it.
// The hook's job type embeds a *Job, which makes it a Keeper.
type Job struct {
	// Snapshot is what the compactor got; never modified.
	Snapshot []*schema.Message
	// Started is when the job started; a Set drops a job older than its
	// MaxAge.
	Started time.Time
	done    chan struct{} // closed by Finish
	// awaited is closed once a model call waits for the job (Await): at
	// once for a synchronous compaction, when a call needs it for a
	// prepared one.
	awaited   chan struct{}
	awaitOnce sync.Once
}

// NewJob returns a job of snapshot started at started, neither finished nor
// awaited.
func NewJob(snapshot []*schema.Message, started time.Time) *Job {
	return &Job{Snapshot: snapshot, Started: started, done: make(chan struct{}), awaited: make(chan struct{})}
}

// Base returns j itself: the method that makes a type embedding *Job a
// Keeper.
func (j *Job) Base() *Job { return j }

// Finish marks j finished; call it once, after the job's outcome is set.
func (j *Job) Finish() { close(j.done) }

// Done returns a channel closed once j has finished.
func (j *Job) Done() <-chan struct{} { return j.done }

// Finished reports whether j has finished.
func (j *Job) Finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// Await records that a model call now waits for j (see Awaited).
func (j *Job) Await() { j.awaitOnce.Do(func() { close(j.awaited) }) }

// WithAwaited returns ctx carrying j's awaited channel, for Awaited.
func (j *Job) WithAwaited(ctx context.Context) context.Context {
	return context.WithValue(ctx, awaitedKey{}, (<-chan struct{})(j.awaited))
}

type awaitedKey struct{}

// closedChan is what Awaited returns outside a job.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Awaited returns the awaited channel of the job whose ctx (Job.WithAwaited)
// ctx is or derives from, and a closed channel for any other ctx: whoever
// calls a compactor directly waits for it.
func Awaited(ctx context.Context) <-chan struct{} {
	if ch, ok := ctx.Value(awaitedKey{}).(<-chan struct{}); ok {
		return ch
	}
	return closedChan
}

// AnchorOf returns a conversation's first message that is not a system
// message, or nil when it has none (nothing to compact).
func AnchorOf(messages []*schema.Message) *schema.Message {
	for _, m := range messages {
		if m != nil && m.Role != schema.System {
			return m
		}
	}
	return nil
}

// Anchor is the registry key of a conversation: the content digest of
// AnchorOf; ok is false when it has no such message.
func Anchor(messages []*schema.Message) (key digest.Sum, ok bool) {
	a := AnchorOf(messages)
	if a == nil {
		return digest.Sum{}, false
	}
	return digest.Of(a), true
}

// hasPrefix reports whether messages begins with the messages of snapshot,
// in the same order: the same pointers (messages are immutable by contract,
// so equal pointers mean equal content), or where a pointer differs, the
// same content (digest.Same).
func hasPrefix(messages, snapshot []*schema.Message) bool {
	if len(messages) < len(snapshot) {
		return false
	}
	for i, m := range snapshot {
		if !digest.Same(messages[i], m) {
			return false
		}
	}
	return true
}
