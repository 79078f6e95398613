package bench

import (
	"context"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// simGate makes the prepared hook's background compactions follow the
// simulated clock. The Summarizer answers at once and only accounts its
// latency, so left alone a background compaction would be finished, in the
// hook's eyes, as soon as the goroutine scheduler ran it; a hook decision
// that depends on whether it finished (Report.Deferred) would then follow
// the scheduler, not the simulation.
//
// So the compactor the hook gets computes its result, then holds it until
// the driver releases it: before each model call (advance) the driver
// releases every background compaction whose simulated end (the model call
// that started it plus the latencies of its summarizer calls, which run one
// after another) is not after the call, and waits until the hook has
// recorded its outcome (HookConfig.OnPrepared, called after that). A
// compaction the hook waits for (a call at its ceiling) is let go by
// compaction.Awaited instead, and the call is charged what was left of it.
// Synchronous compactions, awaited from the start, are not held.
//
// Each step is deterministic: the driver never reads anything the hook's
// goroutines write without first waiting for the signal that follows the
// write (computed, finished), and the hook only sees a compaction finished
// once the driver released it or the hook itself waited for it.
type simGate struct {
	// latency is the summed simulated latency of the summarizer calls made
	// so far by the compaction started at a step.
	latency func(origin int) time.Duration

	mu   sync.Mutex
	jobs map[int]*gatedJob // by the step that started the compaction

	// Used by the driver's goroutine only.
	pending []int // steps whose compaction is neither released nor awaited
}

// gatedJob is one background compaction held by a simGate.
type gatedJob struct {
	computed chan struct{} // closed by the compactor once its result is computed
	release  chan struct{} // closed by the driver when the clock passes end
	finished chan struct{} // closed by HookConfig.OnPrepared
	awaited  <-chan struct{}
	// Driver only.
	start, end time.Duration
	known      bool // end is set
}

func newSimGate(latency func(origin int) time.Duration) *simGate {
	return &simGate{latency: latency, jobs: map[int]*gatedJob{}}
}

// job returns the gatedJob of the compaction started at step, making it on
// first use by whichever side gets there first.
func (g *simGate) job(step int) *gatedJob {
	g.mu.Lock()
	defer g.mu.Unlock()
	j, ok := g.jobs[step]
	if !ok {
		j = &gatedJob{computed: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{})}
		g.jobs[step] = j
	}
	return j
}

// compactor wraps c for the prepared hook. A compaction still running when
// the run ends is not cancelled by the run, only by Close, which the
// simulation calls at the end of the run: the computation is shielded from
// that cancellation and finishes, as it would in a server.
func (g *simGate) compactor(c compaction.Compactor) compaction.Compactor {
	return compaction.CompactorFunc(func(ctx context.Context, m []*schema.Message, target int, tc compaction.TokenCounter) ([]*schema.Message, error) {
		awaited := compaction.Awaited(ctx)
		select {
		case <-awaited:
			// A synchronous compaction. (A background one is awaited
			// only by a model call, which the driver makes after it saw
			// computed below.)
			return c.Compact(context.WithoutCancel(ctx), m, target, tc)
		default:
		}
		out, err := c.Compact(withBackground(context.WithoutCancel(ctx)), m, target, tc)
		j := g.job(originOf(ctx))
		j.awaited = awaited // read by the driver after computed
		close(j.computed)
		select {
		case <-j.release:
		case <-awaited:
		case <-ctx.Done(): // dropped by the hook, or the hook closed
		}
		return out, err
	})
}

// onPrepared is the hook's HookConfig.OnPrepared.
func (g *simGate) onPrepared(_ context.Context, d compaction.PreparedDone) {
	close(g.job(d.Step).finished)
}

// advance runs before the model call due at now: it releases every pending
// compaction that has ended by now and waits until the hook recorded it.
func (g *simGate) advance(now time.Duration) {
	if g == nil {
		return
	}
	kept := g.pending[:0]
	for _, s := range g.pending {
		j := g.job(s)
		if !j.known {
			<-j.computed
			j.end, j.known = j.start+g.latency(s), true
		}
		if j.end > now {
			kept = append(kept, s)
			continue
		}
		close(j.release)
		<-j.finished
	}
	g.pending = kept
}

// settle runs after the hook's check at step, due at now: a compaction the
// check started becomes pending, and one the check waited for is done.
func (g *simGate) settle(step int, now time.Duration, preparing bool) {
	if g == nil {
		return
	}
	kept := g.pending[:0]
	for _, s := range g.pending {
		j := g.job(s)
		select {
		case <-j.awaited:
			// The hook waited for it in this check: its goroutine
			// returns, and OnPrepared follows.
			<-j.finished
		default:
			kept = append(kept, s)
		}
	}
	g.pending = kept
	if preparing {
		g.job(step).start = now
		g.pending = append(g.pending, step)
	}
}
