package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// Prepared compaction (HookConfig.PrepareAt). The conversation only grows
// between model calls and a compaction replaces its oldest part, so the
// compaction the trigger will need can start earlier, on the conversation as
// it stands at PrepareAt, while the agent keeps calling the model with the
// whole of it. At the trigger the hook swaps the prepared result in for the
// prefix it covers and keeps what was appended since verbatim
// (shape.MergeAppended), so the call waits for nothing. While the job is still
// running a call at the trigger goes out uncompacted (deferred) up to the
// ceiling; from the ceiling on it waits for what is left of the job.
//
// A prepared result is only ever applied to a conversation that begins with
// its snapshot: the same *schema.Message values in the same order, or where
// a value differs (a middleware that copies every message) the same content
// (digest.Same). Another conversation (another run of a shared hook) cannot
// match unless it holds the very same messages, in which case the result is
// as right for it. A conversation rewritten since
// the snapshot no longer matches; it compacts synchronously at the trigger,
// and the unused job is dropped when it expires or is pushed out.
//
// A prepared job that failed (error, panic, declined, or a result the
// trigger would refuse) is replaced by a new one under the backoff rule of
// a failed synchronous compaction (see preparesAgain), so that one transient
// summarizer error does not leave the trigger to compact synchronously.
//
// A prepared job runs on a ctx that keeps the values of the run that
// started it but not its cancellation: when that run ends, the job goes on,
// and a later run whose messages begin with the snapshot (the next Run of the
// same conversation, carrying its history forward) uses the result. Close
// cancels every job and waits for it. A hook keeps at most
// jobs.DefaultMaxJobs jobs, each for at most jobs.DefaultMaxAge: a job's
// ctx ends then, and the next job added drops every expired one.

// prepare starts a background compaction of state's conversation once its
// estimate est reaches PrepareAt, unless one is prepared for it already. It
// reports whether it started one.
func (h *CompactionHook) prepare(ctx context.Context, state *hooks.State, est int) bool {
	if float64(est) < float64(h.window)*h.prepareAt {
		return false
	}
	messages := state.Messages
	now := time.Now()
	found, expired := h.jobs.Find(messages, false, now)
	h.dropAll(ctx, expired, "it expired")
	if found != nil {
		if !h.preparesAgain(found, est, state.StepCount) || !h.jobs.Remove(found) {
			return false
		}
		h.drop(ctx, found, "it failed; preparing again")
	}
	msgTokens, err := h.counter.Count(ctx, messages, nil)
	if err != nil {
		h.log.DebugContext(ctx, "compaction not prepared: counting the conversation failed", "step", state.StepCount+1, "error", err.Error())
		return false
	}
	trigger, base := h.Thresholds()
	overhead := est - msgTokens
	full := base - overhead
	if full <= 0 {
		return false
	}
	// Go as deep as a compaction at the trigger would (HookConfig.Prices).
	// What is appended while the job is written stays verbatim behind its
	// result, at least trigger-est tokens by the time it is applied, and
	// counts towards the verbatim floor: keeping the whole floor in the
	// snapshot too kept about twice as much as a synchronous compaction,
	// which made every prepared compaction re-send more and the next one
	// come sooner.
	keep, err := h.billKeep(ctx, messages, int(trigger), overhead, full+overhead, h.verbatimFloor())
	if err != nil {
		h.log.DebugContext(ctx, "compaction not prepared: counting for the bill failed", "step", state.StepCount+1, "error", err.Error())
		return false
	}
	if keep >= 0 {
		keep = max(keep-max(int(trigger)-est, 0), 0)
	}
	// The result is applied at the first call at or past the trigger that
	// finds it finished, and whatever was appended since the snapshot is
	// kept verbatim behind it. A summary still being written lets calls go
	// out up to the ceiling, so the conversation grows by more than
	// trigger-est before the result is used: aim lower by the growth to
	// halfway from the trigger to the ceiling, so the merged conversation
	// lands near the usual target. Aiming at the trigger left every
	// prepared compaction larger than a synchronous one, so the next came
	// sooner and each re-sent more uncached tokens: with the bill of
	// `make bench-compare` (OpenAI-like prices) prepared/synchronous was
	// 1.05, 1.11 and 1.05 on the three shapes, and is 1.01, 1.06 and 1.01
	// aiming halfway (aiming at the ceiling: 1.01, 1.07, 1.01). A quarter
	// of the usual target is the floor, so a PrepareAt far below CompactAt
	// does not summarize nearly everything. A conversation prepared at or
	// above that point (the rest of a compaction, see usePrepared) aims for
	// the usual target.
	applied := (trigger + h.ceiling()) / 2
	target := max(min(full-(int(applied)-est), full), full/4)
	r := Report{Step: state.StepCount, Overhead: overhead, Deep: keep >= 0, keep: keep}
	// The job outlives its run but not maxAge: by then find would drop its
	// result unused, so a summarizer call still running (hung, with no
	// deadline of its own) is cancelled even if no call of the hook ever
	// looks the job up again.
	parent, expire := context.WithTimeout(context.WithoutCancel(WithRequestTools(ctx, state.Tools)), h.jobs.MaxAge)
	j := h.newJob(parent, slices.Clone(messages), msgTokens, target, &r)
	cancel := j.cancel
	j.cancel = func() { cancel(); expire() }
	j.background = true
	h.share(ctx, j, messages)
	if !h.addJob(ctx, j, now) || !h.start(j) {
		j.cancel()
		if j.lease.Held() {
			// Claimed, never started (closed, or no room): end it now.
			h.endLease(ctx, j.lease, nil)
		}
		return false
	}
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction preparing in the background", "step", state.StepCount+1, "estimated_tokens", est,
			"target_tokens", target, "messages", len(messages))
	}
	return true
}

// preparesAgain reports whether the job j prepared for a conversation now
// estimated at est, at step step, gives way to a new one. A job still
// running or with a usable result is kept. A failed one (a summarizer error,
// a declined or refused result) would otherwise stay until the trigger, which
// then compacts synchronously and stalls the agent for a whole compaction,
// the wait PrepareAt exists to avoid. It is replaced as a failed synchronous
// compaction is retried (jobs.Backoff.Holds): once the conversation has grown
// by jobs.Growth of the window since its snapshot or jobs.Steps calls
// have passed since it started, so that a dead summarizer costs one
// background call every few calls rather than one per call. A job that
// declined without a failed summarizer round is no failure and is replaced
// at once, as a synchronous decline starts no backoff. A job whose ctx
// ended before the compactor returned says nothing about the compactor and
// is replaced at once.
func (h *CompactionHook) preparesAgain(j *job, est, step int) bool {
	if !j.Finished() || !j.failed() {
		return false
	}
	if j.err == nil && j.result == nil && h.declineCause(j) == nil {
		// Declined without a failure: no backoff (see settle).
		return true
	}
	return j.cut || !(jobs.Backoff{Estimate: j.tokens + j.overhead, Step: j.step}).Holds(est, step, h.window)
}

// usePrepared applies the prepared compaction of State.Messages, waiting for
// it if it is still running. done is true when the call is then below the
// trigger, or below the ceiling with the rest being prepared in the
// background (r.Preparing); false with a nil error when the caller must
// compact now: there was no usable prepared result, or it left the call at
// or above the ceiling (State.Messages then holds it, and r says so).
func (h *CompactionHook) usePrepared(ctx context.Context, state *hooks.State, r *Report) (done bool, err error) {
	j, expired := h.jobs.Find(state.Messages, true, time.Now())
	h.dropAll(ctx, expired, "it expired")
	if j == nil {
		return false, nil
	}
	j.Await()
	select {
	case <-j.Done():
	case <-ctx.Done():
		// Still right for this conversation: keep it for a retry.
		if !h.addJob(ctx, j, time.Now()) {
			h.drop(ctx, j, "the run ended while waiting for it")
		}
		return false, fmt.Errorf("compaction: waiting for the compaction prepared at step %d: %w", j.step, ctx.Err())
	}
	r.Rounds = append(r.Rounds, j.rounds.take()...)
	r.Duration += j.duration
	result, err := h.checked(ctx, j, r)
	if err != nil || result == nil {
		// Never fatal: the trigger is here, so compact the usual way.
		// Debug: the compaction that follows has the outcome's record.
		h.log.DebugContext(ctx, "prepared compaction unusable; compacting now", "step", r.BeforeStep(), "prepared_at_step", j.step+1)
		return false, nil
	}
	// Set before apply, whose "compaction applied" record reports them.
	r.Prepared, r.Shared = true, j.shared
	sent := state.Messages
	if err := h.apply(ctx, state, j.Snapshot, result, j.tokens, j.resultTokens, r); err != nil {
		r.Prepared, r.Shared = false, false
		return false, withCtxErr(ctx, err)
	}
	if !r.Compacted {
		r.Prepared, r.Shared = false, false
		return false, nil
	}
	if trigger, _ := h.Thresholds(); float64(r.TokensAfter+r.Overhead) >= trigger {
		// What was appended since the snapshot keeps the call at the
		// trigger. Below the ceiling the call goes out and the rest is
		// prepared in the background, like a deferred call; from the
		// ceiling on it is compacted now.
		if est := r.TokensAfter + r.Overhead; float64(est) < h.ceiling() && h.prepareAfterCompaction(ctx, state, est, sent) {
			r.Preparing = true
			h.log.DebugContext(ctx, "prepared compaction still leaves the call at the trigger; preparing the rest in the background",
				"step", r.BeforeStep(), "tokens_after", r.TokensAfter, "trigger_tokens", trigger, "ceiling_tokens", h.ceiling())
			return true, nil
		}
		h.log.DebugContext(ctx, "prepared compaction still leaves the call at the trigger; compacting the rest now",
			"step", r.BeforeStep(), "tokens_after", r.TokensAfter, "trigger_tokens", trigger)
		return false, nil
	}
	return true, nil
}

// deferred handles a triggered call below the ceiling while the compaction
// prepared for its conversation is still being written: the call goes out
// uncompacted, so the agent keeps working, and the Report says so. The first
// triggered call after the compaction finished applies it (usePrepared).
// One tool result can carry a conversation from PrepareAt past CompactAt in
// a step or two, before the summary is written; waiting there would stall
// the agent for most of a compaction while the window still has room.
func (h *CompactionHook) deferred(ctx context.Context, state *hooks.State, r *Report) bool {
	messages := state.Messages
	if h.prepareAt == 0 || float64(r.Estimated) >= h.ceiling() {
		return false
	}
	j, expired := h.jobs.Find(messages, false, time.Now())
	h.dropAll(ctx, expired, "it expired")
	if j == nil || j.Finished() {
		return false
	}
	r.Deferred = true
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction deferred: the prepared compaction is still being written", "step", r.BeforeStep(),
			"estimated_tokens", r.Estimated, "ceiling_tokens", h.ceiling(), "prepared_at_step", j.step+1)
	}
	if h.observer != nil {
		h.observer.ObserveCompaction(ctx, *r)
	}
	return true
}

// WaitPrepared waits until every compaction the hook has started preparing
// in the background (HookConfig.PrepareAt) and still keeps has finished, or
// ctx ends. It starts and cancels nothing; the results stay for the calls
// that apply them. With a summarizer that answers at once, whether a
// prepared compaction is finished at the next model call depends on
// goroutine scheduling; a test or an offline demo that calls WaitPrepared
// after each model call gets the same outcome every run.
func (h *CompactionHook) WaitPrepared(ctx context.Context) error {
	if err := h.jobs.Wait(ctx); err != nil {
		return fmt.Errorf("compaction: waiting for prepared compactions: %w", err)
	}
	return nil
}

// addJob registers j with the hook's jobs and cancels, with their reasons,
// the jobs that made room for it or had expired, whether or not j was added.
func (h *CompactionHook) addJob(ctx context.Context, j *job, now time.Time) bool {
	ok, expired, evicted := h.jobs.Add(j, now)
	h.dropAll(ctx, expired, "it expired")
	if evicted != nil {
		h.drop(ctx, evicted, "too many prepared compactions")
	}
	return ok
}

func (h *CompactionHook) dropAll(ctx context.Context, jobs []*job, why string) {
	for _, j := range jobs {
		h.drop(ctx, j, why)
	}
}

// drop cancels a prepared job that will not be used and logs what it cost.
// It goes to no Observer: no model call follows it.
func (h *CompactionHook) drop(ctx context.Context, j *job, why string) {
	j.cancel()
	if !h.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	in, out := 0, 0
	rounds := j.rounds.take()
	for _, rd := range rounds {
		if rd.Usage != nil {
			in, out = in+rd.Usage.PromptTokens, out+rd.Usage.CompletionTokens
		}
	}
	h.log.DebugContext(ctx, "prepared compaction dropped unused: "+why, "prepared_at_step", j.step, "age", time.Since(j.Started),
		"finished", j.Finished(), "rounds", len(rounds), "summarizer_input_tokens", in, "summarizer_output_tokens", out)
}

// job is one call of the compactor on its own goroutine. Every compaction
// runs as a job: a synchronous one so that the hook returns when its run's
// ctx ends even if the compactor ignores ctx (the call finishes in the
// background and its result is discarded), a prepared one so that the agent
// keeps calling the model while the summary is written.
type job struct {
	// Job holds the snapshot (what the compactor got; never modified), the
	// start, and the channels closed once the fields below are set and
	// once a model call waits for the job (Awaited).
	*jobs.Job
	tokens   int             // the counter's size of Snapshot
	target   int             // the target handed to the compactor
	overhead int             // Report.Overhead when the job started
	step     int             // State.StepCount when the job started
	ctx      context.Context // the compactor's: isolated, collecting rounds
	cancel   context.CancelFunc
	rounds   *roundLog
	// background marks a prepared compaction (HookConfig.PrepareAt), whose
	// end HookConfig.OnPrepared hears of.
	background bool
	// values is the ctx of the run that started the job, without its
	// cancellation, for HookConfig.OnPrepared.
	values context.Context

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
	base := jobs.NewJob(snapshot, time.Now())
	cctx = base.WithAwaited(cctx)
	return &job{Job: base, tokens: tokens, target: target, overhead: r.Overhead, step: r.Step,
		ctx: cctx, cancel: cancel, rounds: rounds, values: context.WithoutCancel(parent)}
}

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
func Awaited(ctx context.Context) <-chan struct{} { return jobs.Awaited(ctx) }

// start runs j on its own goroutine. It returns false, starting nothing,
// once the hook is closed. Close cancels prepared jobs only. A synchronous
// job is what a live run waits for; cancelling it would fail that run with
// context.Canceled although its own ctx is fine. Close waits for it
// instead; a run that gives up cancels its own job (compact).
func (h *CompactionHook) start(j *job) bool {
	var cancel context.CancelFunc
	if j.background {
		cancel = j.cancel
	}
	return h.jobs.Go(cancel, func() {
		h.runJob(j)
		h.publishShared(j)
		if j.background {
			h.preparedDone(j)
		}
	})
}

// preparedDone tells HookConfig.OnPrepared that the prepared job j has
// finished. It runs after j.Finish, so a model call that follows the
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

// runJob calls the compactor and publishes its outcome (j.Finish).
func (h *CompactionHook) runJob(j *job) {
	defer j.Finish()
	defer j.cancel()
	defer func() {
		// A panic on a job's goroutine would end the process; the hook
		// reports it the way the registry reports a panicking hook.
		if p := recover(); p != nil {
			j.result, j.err = nil, fmt.Errorf("%w: compactor %s: %v", hooks.ErrHookPanic, h.kind, p)
			j.duration = time.Since(j.Started)
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
			j.result, j.err = h.compactor.Compact(j.ctx, j.Snapshot, j.target, h.counter)
		}
		// Waiting in vain says nothing about the compactor: like a job
		// cut short, it gives way at once (preparesAgain).
		j.cut = j.cut || errors.Is(j.err, errNotShared)
	} else {
		// Renewed until publishShared has ended the lease.
		j.unhold = h.holdLease(j)
		j.result, j.err = h.compactor.Compact(j.ctx, j.Snapshot, j.target, h.counter)
	}
	j.duration = time.Since(j.Started)
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
	if shape.NewFaults(j.Snapshot, j.result) != nil {
		return true, 0
	}
	left, err := h.counter.Count(j.ctx, j.result, nil)
	if err != nil {
		return false, 0
	}
	return left >= j.tokens, left
}

// backedOff handles a triggered call while a failed compaction holds the
// conversation back: the call goes out uncompacted, the Report says so.
func (h *CompactionHook) backedOff(ctx context.Context, messages []*schema.Message, r *Report) bool {
	if !h.backoff.Holds(messages, r.Estimated, r.Step, h.window, h.ceiling()) {
		return false
	}
	r.BackedOff = true
	h.log.DebugContext(ctx, "compaction backed off after a failed attempt", "step", r.BeforeStep(), "estimated_tokens", r.Estimated)
	if h.observer != nil {
		h.observer.ObserveCompaction(ctx, *r)
	}
	return true
}

// settle records a triggered compaction's outcome for the backoff, and
// says so when the coming call still exceeds the window: Report.Overflow and
// an Error record. The call is not blocked: the estimate is the counter's,
// the provider has the last word, and a run must not fail because the
// compactor did (RaiseOnFailure decides that).
func (h *CompactionHook) settle(ctx context.Context, messages []*schema.Message, r *Report) {
	if !r.Compacted && ctx.Err() != nil {
		// The run ended, not the compactor: a run resumed with the same
		// messages must not find its compaction held back.
		return
	}
	// A decline without a failure (e.g. only the protected newest step
	// exists) starts no backoff: one call later there may be something to
	// compact, and such a decline cost no model call
	// (TestHookBacksOffOnlyAfterAFailure).
	if r.Compacted || r.Err != nil || r.Unprofitable {
		h.backoff.Record(messages, r.Compacted, r.Estimated, r.Step)
	}
	// Debug: the outcome itself already has its one record.
	if !r.Compacted && r.Err != nil && h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction did not apply; not trying again for this conversation until it grows or a few calls pass",
			"step", r.BeforeStep(), "estimated_tokens", r.Estimated, "retry_after_calls", jobs.Steps,
			"retry_after_tokens", r.Estimated+int(jobs.Growth*float64(h.window)))
	}
	if ctx.Err() != nil {
		return
	}
	est := r.Estimated
	if r.Compacted {
		est = r.TokensAfter + r.Overhead
	}
	if est <= h.window {
		return
	}
	r.Overflow = true
	why := "nothing compactable is left"
	if r.Err != nil {
		why = "compaction failed: " + r.Err.Error()
	}
	h.log.ErrorContext(ctx, "the coming model call is estimated above the context window: "+why, "step", r.BeforeStep(),
		"estimated_tokens", est, "window_tokens", h.window)
}
