package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
	"github.com/einocompact/einocompact/hooks/compaction/internal/share"
)

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

	// Sharing through HookConfig.Store (see share.go). shared: the
	// result comes from the store, preset when found published, else
	// awaited under the key remote; lease: the job compacts a prefix it
	// claimed and publishes the result.
	shared bool
	preset []*schema.Message
	remote string
	lease  share.Lease
	unhold func() // stops renewing lease (holdLease); nil until then
}

// failed reports whether the finished job j left nothing to apply: the
// compactor failed, panicked or declined, or (prepared jobs) its result is
// refused.
func (j *job) failed() bool { return j.err != nil || j.result == nil || j.refused }

// newJob prepares a compaction of snapshot on a ctx derived from parent
// (isolated from the agent's callback handlers, collecting the rounds); a
// background job's ctx also ends when the hook is closed (see start). Nothing runs before start or runInline.
func (h *Engine) newJob(parent context.Context, snapshot []*schema.Message, tokens, target int, r *Report) *job {
	if r.Deep {
		// At the trigger the floor gives way: the next call would compact
		// again at once. Below it the floor holds, however far above the
		// target: a limit halfway from the target to the trigger let the
		// usual rounds that followed a deep round take from the floor and
		// overshoot (7.4 % of the window verbatim on few-huge-results with
		// PricesOpenAI set, `go run ./cmd/benchcompare -bill`).
		trigger, _ := h.Thresholds()
		parent = planning.WithDeep(parent, planning.Deep{Keep: r.Keep, Limit: int(trigger) - 1 - r.Overhead})
	}
	jctx, cancel := context.WithCancel(parent)
	cctx, rounds := withRoundLog(h.isolate(jctx), h.Outputs)
	base := jobs.NewJob(snapshot, time.Now())
	cctx = base.WithAwaited(cctx)
	return &job{Job: base, tokens: tokens, target: target, overhead: r.Overhead, step: r.Step,
		ctx: cctx, cancel: cancel, rounds: rounds, values: context.WithoutCancel(parent)}
}

// start runs j on its own goroutine. It returns false, starting nothing,
// once the hook is closed. Close cancels prepared jobs only. A synchronous
// job is what a live run waits for; cancelling it would fail that run with
// context.Canceled although its own ctx is fine. Close waits for it
// instead; a run that gives up cancels its own job (compact).
func (h *Engine) start(j *job) bool {
	var cancel context.CancelFunc
	if j.background {
		cancel = j.cancel
	}
	return h.Jobs.Go(cancel, func() {
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
func (h *Engine) preparedDone(j *job) {
	if h.onPrepared == nil {
		return
	}
	defer func() {
		// A panic on a job's goroutine would end the process.
		if p := recover(); p != nil {
			h.log.ErrorContext(j.values, "compaction: HookConfig.OnPrepared panicked", "prepared_at_step", j.step, "panic", fmt.Sprint(p))
		}
	}()
	h.onPrepared(j.values, Done{Step: j.step, Duration: j.duration, Err: j.err, Declined: j.err == nil && j.result == nil, Refused: j.refused})
}

// runJob calls the compactor and publishes its outcome (j.Finish).
func (h *Engine) runJob(j *job) {
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
			j.result, j.err = h.compactor(j.ctx, j.Snapshot, j.target)
		}
		// Waiting in vain says nothing about the compactor: like a job
		// cut short, it gives way at once (preparesAgain).
		j.cut = j.cut || errors.Is(j.err, errNotShared)
	} else {
		// Renewed until publishShared has ended the lease.
		j.unhold = h.holdLease(j)
		j.result, j.err = h.compactor(j.ctx, j.Snapshot, j.target)
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
func (h *Engine) refused(j *job) (bool, int) {
	if shape.NewFaults(j.Snapshot, j.result) != nil {
		return true, 0
	}
	left, err := h.counter.Count(j.ctx, j.result, nil)
	if err != nil {
		return false, 0
	}
	return left >= j.tokens, left
}

// addJob registers j with the hook's jobs and cancels, with their reasons,
// the jobs that made room for it or had expired, whether or not j was added.
func (h *Engine) addJob(ctx context.Context, j *job, now time.Time) bool {
	ok, expired, evicted := h.Jobs.Add(j, now)
	h.dropAll(ctx, expired, "it expired")
	if evicted != nil {
		h.drop(ctx, evicted, "too many prepared compactions")
	}
	return ok
}

func (h *Engine) dropAll(ctx context.Context, jobs []*job, why string) {
	for _, j := range jobs {
		h.drop(ctx, j, why)
	}
}

// drop cancels a prepared job that will not be used and logs what it cost.
// It goes to no Observer: no model call follows it.
func (h *Engine) drop(ctx context.Context, j *job, why string) {
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

// Err is the finished job's error; for the hook's tests.
func (j *job) Err() error { return j.err }

// Cancel ends the job's ctx; for the hook's tests.
func (j *job) Cancel() { j.cancel() }
