package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
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

// Prepare starts a background compaction of state's conversation once its
// Estimate est reaches PrepareAt, unless one is prepared for it already. It
// reports whether it started one.
func (h *Engine) Prepare(ctx context.Context, state *hooks.State, est int) bool {
	if float64(est) < float64(h.window)*h.PrepareAt {
		return false
	}
	messages := state.Messages
	now := time.Now()
	found, expired := h.Jobs.Find(messages, false, now)
	h.dropAll(ctx, expired, "it expired")
	if found != nil {
		if !h.preparesAgain(found, est, state.StepCount) || !h.Jobs.Remove(found) {
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
	keep, err := h.billKeep(ctx, messages, int(trigger), overhead, full+overhead, h.VerbatimFloor())
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
	applied := (trigger + h.Ceiling()) / 2
	target := max(min(full-(int(applied)-est), full), full/4)
	r := Report{Step: state.StepCount, Overhead: overhead, Deep: keep >= 0, Keep: keep}
	// The job outlives its run but not maxAge: by then find would drop its
	// result unused, so a summarizer call still running (hung, with no
	// deadline of its own) is cancelled even if no call of the hook ever
	// looks the job up again.
	parent, expire := context.WithTimeout(context.WithoutCancel(request.WithTools(ctx, state.Tools)), h.Jobs.MaxAge)
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
func (h *Engine) preparesAgain(j *job, est, step int) bool {
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
func (h *Engine) usePrepared(ctx context.Context, state *hooks.State, r *Report) (done bool, err error) {
	j, expired := h.Jobs.Find(state.Messages, true, time.Now())
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
		if est := r.TokensAfter + r.Overhead; float64(est) < h.Ceiling() && h.prepareAfterCompaction(ctx, state, est, sent) {
			r.Preparing = true
			h.log.DebugContext(ctx, "prepared compaction still leaves the call at the trigger; preparing the rest in the background",
				"step", r.BeforeStep(), "tokens_after", r.TokensAfter, "trigger_tokens", trigger, "ceiling_tokens", h.Ceiling())
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
func (h *Engine) deferred(ctx context.Context, state *hooks.State, r *Report) bool {
	messages := state.Messages
	if h.PrepareAt == 0 || float64(r.Estimated) >= h.Ceiling() {
		return false
	}
	j, expired := h.Jobs.Find(messages, false, time.Now())
	h.dropAll(ctx, expired, "it expired")
	if j == nil || j.Finished() {
		return false
	}
	r.Deferred = true
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction deferred: the prepared compaction is still being written", "step", r.BeforeStep(),
			"estimated_tokens", r.Estimated, "ceiling_tokens", h.Ceiling(), "prepared_at_step", j.step+1)
	}
	if h.observe != nil {
		h.observe(ctx, r)
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
func (h *Engine) WaitPrepared(ctx context.Context) error {
	if err := h.Jobs.Wait(ctx); err != nil {
		return fmt.Errorf("compaction: waiting for prepared compactions: %w", err)
	}
	return nil
}

// prepareAfterCompaction starts preparing the next compaction in the call
// that has just compacted state's conversation (see prepare), while that
// call has not gone out yet. sent is the conversation as the hook received
// it, before the compaction: its requests are the last the agent actually
// sent. A cache-aligned summarizer request (SummarizationConfig.CacheAligned)
// must be one of them plus its instruction, byte for byte, or no cache
// holds its prefix; built from the compacted conversation, which no request
// has carried yet, it read no cached tokens. Given sent, a round whose span
// holds the new summary sends the transcript request instead
// (FallbackNotSent).
func (h *Engine) prepareAfterCompaction(ctx context.Context, state *hooks.State, est int, sent []*schema.Message) bool {
	return h.Prepare(request.WithSent(ctx, slices.Clone(sent)), state, est)
}

// BackedOff handles a triggered call while a failed compaction holds the
// conversation back: the call goes out uncompacted, the Report says so.
func (h *Engine) BackedOff(ctx context.Context, messages []*schema.Message, r *Report) bool {
	if !h.backoff.Holds(messages, r.Estimated, r.Step, h.window, h.Ceiling()) {
		return false
	}
	r.BackedOff = true
	h.log.DebugContext(ctx, "compaction backed off after a failed attempt", "step", r.BeforeStep(), "estimated_tokens", r.Estimated)
	if h.observe != nil {
		h.observe(ctx, r)
	}
	return true
}

// Settle records a triggered compaction's outcome for the backoff, and
// says so when the coming call still exceeds the window: Report.Overflow and
// an Error record. The call is not blocked: the estimate is the counter's,
// the provider has the last word, and a run must not fail because the
// compactor did (RaiseOnFailure decides that).
func (h *Engine) Settle(ctx context.Context, messages []*schema.Message, r *Report) {
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
