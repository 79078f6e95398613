package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// job is one call of the compactor on its own goroutine. Every compaction
// runs as a job: a synchronous one so that the hook returns when its run's
// ctx ends even if the compactor ignores ctx (the call finishes in the
// background and its result is discarded), a prepared one so that the agent
// keeps calling the model while the summary is written.
type job struct {
	snapshot []*schema.Message // what the compactor got; never modified
	tokens   int               // the counter's size of snapshot
	target   int               // the target handed to the compactor
	overhead int               // Report.Overhead when the job started
	step     int               // State.StepCount when the job started
	started  time.Time
	ctx      context.Context // the compactor's: isolated, collecting rounds
	cancel   context.CancelFunc
	rounds   *roundLog
	done     chan struct{} // closed once the fields below are set
	// background marks a prepared compaction (HookConfig.PrepareAt), whose
	// end HookConfig.OnPrepared hears of.
	background bool
	// values is the ctx of the run that started the job, without its
	// cancellation, for HookConfig.OnPrepared.
	values context.Context
	// awaited is closed once a model call waits for the job (see Awaited):
	// at once for a synchronous compaction, when a call needs it for a
	// prepared one.
	awaited   chan struct{}
	awaitOnce sync.Once

	result   []*schema.Message
	err      error
	duration time.Duration
	// refused, for a prepared job, says its result is one usePrepared
	// would refuse at the trigger whatever was appended meanwhile: it
	// breaks tool-call pairing or is not smaller by the counter. Judged on
	// the job's goroutine, so that prepare can tell a useless job at a
	// glance (see failed).
	refused bool
	// resultTokens is the counter's size of result, measured with refused
	// on the job's goroutine so that the model call applying the result
	// does not measure it again (a counter that tokenizes remotely or
	// keeps no cache pays for every count on that call's path); 0 when
	// not measured.
	resultTokens int
	// cut says j.ctx had ended when the compactor returned (Close, the
	// job's age limit): its outcome says nothing about the compactor.
	cut bool

	// Sharing through HookConfig.Store (see hook_store.go). shared: the
	// result comes from the store, preset when found published, else
	// awaited under the key remote; lease: the job compacts a prefix it
	// claimed and publishes the result.
	shared bool
	preset []*schema.Message
	remote string
	lease  Lease
	unhold func() // stops renewing lease (holdLease); nil until then
}

// failed reports whether the finished job j left nothing to apply: the
// compactor failed, panicked or declined, or (prepared jobs) its result is
// refused.
func (j *job) failed() bool { return j.err != nil || j.result == nil || j.refused }

// Bounds of what a hook keeps for prepared compactions, so that a server
// holding thousands of conversations does not grow without limit. A job
// beyond either is dropped (cancelled if still running) and its
// conversation compacts synchronously when it reaches the trigger.
const (
	// defaultMaxPrepared is how many prepared compactions, running or
	// finished and not yet used, one hook keeps at a time.
	defaultMaxPrepared = 256
	// defaultPreparedMaxAge is how long a prepared compaction is kept for
	// its conversation after it started.
	defaultPreparedMaxAge = 10 * time.Minute
)

// jobSet tracks a hook's running jobs and its prepared compactions.
type jobSet struct {
	life context.Context // cancelled by Close; every job's ctx ends with it
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
	prepared map[Digest][]*job
	count    int
	maxJobs  int
	maxAge   time.Duration
}

func newJobSet() *jobSet {
	life, stop := context.WithCancel(context.Background())
	return &jobSet{life: life, stop: stop, prepared: map[Digest][]*job{},
		maxJobs: defaultMaxPrepared, maxAge: defaultPreparedMaxAge}
}

// newJob prepares a compaction of snapshot on a ctx derived from parent
// (isolated from the agent's callback handlers, collecting the rounds); a
// background job's ctx also ends when the hook is closed (see start). Nothing runs before start or runInline.
func (h *CompactionHook) newJob(parent context.Context, snapshot []*schema.Message, tokens, target int, r *Report) *job {
	if r.Deep {
		// At the trigger the floor gives way: the next call would compact
		// again at once. Below it the floor holds, however far above the
		// target: a limit halfway from the target to the trigger let the
		// usual rounds that followed a deep round take from the floor and
		// overshoot (7.4 % of the window verbatim on few-huge-results with
		// PricesOpenAI set, `go run ./cmd/benchcompare -bill`).
		trigger, _ := h.Thresholds()
		parent = withDeep(parent, deep{keep: r.keep, limit: int(trigger) - 1 - r.Overhead})
	}
	jctx, cancel := context.WithCancel(parent)
	cctx, rounds := withRoundLog(h.isolated(jctx), h.outputs)
	awaited := make(chan struct{})
	cctx = context.WithValue(cctx, awaitedKey{}, (<-chan struct{})(awaited))
	return &job{snapshot: snapshot, tokens: tokens, target: target, overhead: r.Overhead, step: r.Step,
		started: time.Now(), ctx: cctx, cancel: cancel, rounds: rounds, done: make(chan struct{}),
		values: context.WithoutCancel(parent), awaited: awaited}
}

// await records that a model call now waits for j (see Awaited).
func (j *job) await() { j.awaitOnce.Do(func() { close(j.awaited) }) }

type awaitedKey struct{}

// closedChan is what Awaited returns outside a hook's compaction.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Awaited returns a channel that is closed once a model call waits for the
// compaction whose compactor was handed ctx (or a ctx derived from it, such
// as the one a SummarizationCompactor hands its ChatModel). A synchronous
// compaction is waited for from the start, so its channel is closed already.
// A compaction prepared in the background (HookConfig.PrepareAt) is waited
// for when a model call reaches the trigger and finds it still running at or
// above the deferral ceiling (see HookConfig.PrepareAt), or when it is the
// last thing the call needs. A compactor or summarizer may use it to raise
// the priority of background work the agent now waits for; the simulation in
// package bench uses it to charge the wait in simulated time. For a ctx that
// does not come from a CompactionHook the channel is closed: whoever calls a
// compactor directly waits for it.
func Awaited(ctx context.Context) <-chan struct{} {
	if ch, ok := ctx.Value(awaitedKey{}).(<-chan struct{}); ok {
		return ch
	}
	return closedChan
}

// start runs j on its own goroutine. It returns false, starting nothing,
// once the hook is closed.
func (h *CompactionHook) start(j *job) bool {
	js := h.jobs
	js.mu.Lock()
	if js.closed {
		js.mu.Unlock()
		return false
	}
	js.running++
	js.mu.Unlock()
	// Close cancels prepared jobs only. A synchronous job is what a live
	// run waits for; cancelling it would fail that run with
	// context.Canceled although its own ctx is fine. Close waits for it
	// instead; a run that gives up cancels its own job (compact).
	stop := func() bool { return false }
	if j.background {
		stop = context.AfterFunc(js.life, j.cancel)
	}
	go func() {
		defer js.finished()
		defer stop()
		h.runJob(j)
		h.publishShared(j)
		if j.background {
			h.preparedDone(j)
		}
	}()
	return true
}

// preparedDone tells HookConfig.OnPrepared that the prepared job j has
// finished. It runs after j.done is closed, so a model call that follows the
// callback sees the job finished.
func (h *CompactionHook) preparedDone(j *job) {
	if h.onPrepared == nil {
		return
	}
	defer func() {
		// A panic on a job's goroutine would end the process.
		if p := recover(); p != nil {
			h.log.ErrorContext(j.values, "compaction: HookConfig.OnPrepared panicked", "prepared_at_step", j.step, "panic", fmt.Sprint(p))
		}
	}()
	h.onPrepared(j.values, PreparedDone{Step: j.step, Duration: j.duration, Err: j.err, Declined: j.err == nil && j.result == nil, Refused: j.refused})
}

// runJob calls the compactor and publishes its outcome by closing j.done.
func (h *CompactionHook) runJob(j *job) {
	defer close(j.done)
	defer j.cancel()
	defer func() {
		// A panic on a job's goroutine would end the process; the hook
		// reports it the way the registry reports a panicking hook.
		if p := recover(); p != nil {
			j.result, j.err = nil, fmt.Errorf("%w: compactor %s: %v", hooks.ErrHookPanic, h.kind, p)
			j.duration = time.Since(j.started)
		}
		// Read before the deferred cancel above, which ends j.ctx in
		// every case.
		j.cut = j.cut || j.ctx.Err() != nil
	}()
	if j.shared {
		j.result, j.err = h.awaitShared(j)
		if j.background && errors.Is(j.err, errNotShared) && j.ctx.Err() == nil {
			// The other hook's compaction did not come: a prepared job
			// compacts itself here, in the background, rather than leave
			// the trigger to compact synchronously.
			j.shared = false
			j.result, j.err = h.compactor.Compact(j.ctx, j.snapshot, j.target, h.counter)
		}
		// Waiting in vain says nothing about the compactor: like a job
		// cut short, it gives way at once (preparesAgain).
		j.cut = j.cut || errors.Is(j.err, errNotShared)
	} else {
		// Renewed until publishShared has ended the lease.
		j.unhold = h.holdLease(j)
		j.result, j.err = h.compactor.Compact(j.ctx, j.snapshot, j.target, h.counter)
	}
	j.duration = time.Since(j.started)
	if (j.background || j.lease.Held()) && j.err == nil && j.result != nil {
		j.refused, j.resultTokens = h.refused(j)
	}
}

// refused reports whether the result of the finished job j breaks tool-call
// pairing or is not smaller than its snapshot by the counter, the checks
// usePrepared and apply make before applying it, and the result's size by
// the counter (0 when not measured). A counter error leaves the verdict to
// them.
func (h *CompactionHook) refused(j *job) (bool, int) {
	if shape.NewFaults(j.snapshot, j.result) != nil {
		return true, 0
	}
	left, err := h.counter.Count(j.ctx, j.result, nil)
	if err != nil {
		return false, 0
	}
	return left >= j.tokens, left
}

func (js *jobSet) finished() {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.running--
	if js.closed && js.running == 0 && js.idle != nil {
		close(js.idle)
		js.idle = nil
	}
}

// close cancels every job and waits until their goroutines ended or ctx is
// done. Prepared results are dropped.
func (js *jobSet) close(ctx context.Context) (dropped []*job, err error) {
	js.mu.Lock()
	if !js.closed {
		js.closed = true
		for _, list := range js.prepared {
			dropped = append(dropped, list...)
		}
		clear(js.prepared)
		js.count = 0
	}
	js.stop()
	if js.running == 0 {
		js.mu.Unlock()
		return dropped, nil
	}
	if js.idle == nil {
		js.idle = make(chan struct{})
	}
	idle := js.idle
	js.mu.Unlock()
	select {
	case <-idle:
		return dropped, nil
	case <-ctx.Done():
		return dropped, fmt.Errorf("compaction: %d compactor calls still running: %w", js.runningNow(), ctx.Err())
	}
}

// isClosed reports whether close has been called.
func (js *jobSet) isClosed() bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.closed
}

func (js *jobSet) runningNow() int {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.running
}

// anchorOf returns a conversation's first message that is not a system
// message, or nil when it has none (nothing to compact).
func anchorOf(messages []*schema.Message) *schema.Message {
	for _, m := range messages {
		if m != nil && m.Role != schema.System {
			return m
		}
	}
	return nil
}

// anchorKey is the registry key of a conversation: the content digest of
// anchorOf; ok is false when it has no such message.
func anchorKey(messages []*schema.Message) (key Digest, ok bool) {
	a := anchorOf(messages)
	if a == nil {
		return Digest{}, false
	}
	return MessageDigest(a), true
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

// find returns the prepared job whose snapshot messages begins with, if any.
// With take it also removes it, so that only one run uses a result. Jobs
// older than maxAge are dropped on the way and returned in expired.
func (js *jobSet) find(messages []*schema.Message, take bool, now time.Time) (found *job, expired []*job) {
	anchor, ok := anchorKey(messages)
	if !ok {
		return nil, nil
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	list := js.prepared[anchor]
	kept := list[:0]
	for _, j := range list {
		switch {
		case now.Sub(j.started) > js.maxAge:
			expired = append(expired, j)
			continue
		case found == nil && hasPrefix(messages, j.snapshot):
			found = j
			if take {
				continue
			}
		}
		kept = append(kept, j)
	}
	clear(list[len(kept):])
	js.count -= len(list) - len(kept)
	if len(kept) == 0 {
		delete(js.prepared, anchor)
	} else {
		js.prepared[anchor] = kept
	}
	return found, expired
}

// remove takes j out of the prepared jobs. It returns false when j was no
// longer there (a model call took it, or it expired or was pushed out).
func (js *jobSet) remove(j *job) bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.removeLocked(j)
}

// removeLocked is remove with js.mu held.
func (js *jobSet) removeLocked(j *job) bool {
	anchor, _ := anchorKey(j.snapshot)
	list := js.prepared[anchor]
	i := slices.Index(list, j)
	if i < 0 {
		return false
	}
	list = slices.Delete(list, i, i+1)
	if len(list) == 0 {
		delete(js.prepared, anchor)
	} else {
		js.prepared[anchor] = list
	}
	js.count--
	return true
}

// add registers a prepared job unless one for the same conversation exists
// or the set is closed. It first removes every job older than maxAge
// (expired), so that a job whose conversation never calls the hook again
// does not outlive it (find only sees the jobs of the conversation it looks
// up); when the set is still full it removes the oldest finished job
// (evicted), and with every slot held by a running job it refuses. The
// caller cancels what was removed, whether or not j was added.
func (js *jobSet) add(j *job, now time.Time) (ok bool, expired []*job, evicted *job) {
	anchor, ok := anchorKey(j.snapshot)
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.closed || !ok {
		return false, nil, nil
	}
	expired = js.expireLocked(now)
	for _, other := range js.prepared[anchor] {
		if hasPrefix(j.snapshot, other.snapshot) {
			return false, expired, nil
		}
	}
	if js.count >= js.maxJobs {
		if evicted = js.oldestFinishedLocked(); evicted == nil {
			return false, expired, nil
		}
	}
	js.prepared[anchor] = append(js.prepared[anchor], j)
	js.count++
	return true, expired, evicted
}

// expireLocked removes every job older than maxAge and returns them.
func (js *jobSet) expireLocked(now time.Time) []*job {
	var out []*job
	for anchor, list := range js.prepared {
		kept := list[:0]
		for _, j := range list {
			if now.Sub(j.started) > js.maxAge {
				out = append(out, j)
				continue
			}
			kept = append(kept, j)
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(js.prepared, anchor)
		} else {
			js.prepared[anchor] = kept
		}
	}
	js.count -= len(out)
	return out
}

// oldestFinishedLocked removes the finished job that started first and
// returns it, or returns nil when every job still runs.
func (js *jobSet) oldestFinishedLocked() *job {
	var oldest *job
	for _, list := range js.prepared {
		for _, j := range list {
			if isDone(j) && (oldest == nil || j.started.Before(oldest.started)) {
				oldest = j
			}
		}
	}
	if oldest == nil {
		return nil
	}
	js.removeLocked(oldest)
	return oldest
}

func isDone(j *job) bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}
