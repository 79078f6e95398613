package compaction

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
)

// The load test: one agent, hook, compactor and counter shared by many
// concurrent runs, with a summarizer that is slow and fails at random. Every
// run's result is checked on its own; no goroutine may outlive the runs.
//
// `go test` runs a reduced version (40 runs); EINOCOMPACT_LOAD=full (what
// `make load` sets) runs 200 and prints runs/s and hook latency percentiles.

// ldSummarizer answers after a random pause of up to maxPause and fails
// with probability failRate.
type ldSummarizer struct {
	maxPause time.Duration
	failRate float64
	calls    atomic.Int64
	failures atomic.Int64
}

var errLdSummarizer = errors.New("summarizer overloaded (429)")

func (s *ldSummarizer) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s.calls.Add(1)
	pause := time.NewTimer(rand.N(s.maxPause + 1))
	defer pause.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-pause.C:
	}
	if rand.Float64() < s.failRate {
		s.failures.Add(1)
		return nil, errLdSummarizer
	}
	return schema.AssistantMessage("## Work completed\n- pages fetched", nil), nil
}

func (s *ldSummarizer) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("ldSummarizer does not stream")
}

// ldTimer records how long each hook call took, and for compactions the
// part of it not spent waiting for the summarizer.
type ldTimer struct {
	mu        sync.Mutex
	latencies []time.Duration
	own       []time.Duration
}

// observe is the hook's Observer: it counts successful compactions.
func (l *ldTimer) observe(compactions *atomic.Int64) Observer {
	return ObserverFunc(func(_ context.Context, r Report) {
		if r.Err == nil && r.Compacted {
			compactions.Add(1)
		}
		own := r.Duration
		for _, round := range r.Rounds {
			own -= round.Latency
		}
		l.mu.Lock()
		l.own = append(l.own, own)
		l.mu.Unlock()
	})
}

func (l *ldTimer) wrap(h hooks.Hook) hooks.Hook {
	return hooks.Func(func(ctx context.Context, st *hooks.State) error {
		start := time.Now()
		err := h.Run(ctx, st)
		d := time.Since(start)
		l.mu.Lock()
		l.latencies = append(l.latencies, d)
		l.mu.Unlock()
		return err
	})
}

// percentile returns the p-th percentile (nearest rank) of durations.
func (l *ldTimer) percentile(durations *[]time.Duration, p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(*durations)
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

func TestLoadSharedHookManyRuns(t *testing.T) {
	runs, steps, pause := 40, 6, time.Millisecond
	if os.Getenv("EINOCOMPACT_LOAD") == "full" {
		runs, steps, pause = 200, 10, 3*time.Millisecond
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	sum := &ldSummarizer{maxPause: pause, failRate: 0.3}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: sum, ApproximateSummaryTokens: new(20), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	counter := DefaultCounter()
	var compactions atomic.Int64
	timer := &ldTimer{}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 400, TokenCounter: counter, Logger: discardLogger(),
		Observer: timer.observe(&compactions)})
	if err != nil {
		t.Fatal(err)
	}
	m := &arModel{}
	a := arAgent(t, m, timer.wrap(h))

	errs := make([]error, runs)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range runs {
		wg.Go(func() {
			task := fmt.Sprintf("collect %d pages for report %d", steps, i)
			res, err := a.Run(arWithRun(context.Background(), &arRun{steps: steps}), []*schema.Message{user(task)})
			if err == nil {
				err = arCheckResult(res, task)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	if p := m.seenProblems(); len(p) > 0 {
		t.Errorf("the agent's model was sent %d malformed prompts, first: %s", len(p), p[0])
	}
	// The test proves something only if compaction and its failures happened.
	if compactions.Load() == 0 || sum.failures.Load() == 0 {
		t.Errorf("%d compactions and %d summarizer failures; the load exercised neither", compactions.Load(), sum.failures.Load())
	}
	t.Logf("%d runs x %d steps in %v: %.1f runs/s; %d hook calls: p50 %v, p99 %v; %d triggered: p50 %v, p99 %v outside the summarizer; "+
		"%d compactions, %d summarizer calls, %d failed",
		runs, steps, elapsed.Round(time.Millisecond), float64(runs)/elapsed.Seconds(), len(timer.latencies),
		timer.percentile(&timer.latencies, 50), timer.percentile(&timer.latencies, 99), len(timer.own),
		timer.percentile(&timer.own, 50), timer.percentile(&timer.own, 99), compactions.Load(), sum.calls.Load(), sum.failures.Load())
}
