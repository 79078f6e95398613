package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestPreparedAgainAfterFailure: a compaction prepared in the background
// that failed, declined or returned a result the trigger would refuse does
// not stay in place until the trigger (which would then compact
// synchronously and stall the agent): it is replaced by a new one under the
// backoff rule of a failed synchronous compaction, once 8 calls have passed
// since it started or the conversation has grown by 10 % of the window since
// its snapshot, whichever comes first. A compactor that declined without a
// failed summarizer round is no failure: it is prepared again at once. A dead summarizer therefore costs one
// background call every few calls, not one per call. A job whose ctx ended
// is replaced at once; a running or usable one is kept.
//
// Window 10,000 fc1 tokens: PrepareAt 2,000, trigger 7,000, 10 % = 1,000.
// Every model call appends one step (a call and its result) and counts one
// more StepCount; calls are numbered from the first one at PrepareAt. Steps
// of about 100 tokens give 50 calls below the trigger and 8 calls pass
// before the conversation grows by 1,000 tokens; steps of about 420 give 12
// calls, and 3 steps grow it by 1,000 tokens first. Before this rule a failed
// job stayed until the trigger: one preparation, then a synchronous
// compaction.
func TestPreparedAgainAfterFailure(t *testing.T) {
	t.Parallel()
	errDown := errors.New("summarizer down: HTTP 500")
	// works replaces everything between the system prompt and the last
	// assistant message with a summary.
	works := func(msgs []*schema.Message) ([]*schema.Message, error) {
		last := LastAssistantIndex(msgs)
		out := []*schema.Message{msgs[0], NewSummaryMessage("summary", last-1)}
		return append(out, msgs[last:]...), nil
	}
	fails := func([]*schema.Message) ([]*schema.Message, error) { return nil, errDown }
	tests := []struct {
		name    string
		stepLen int // characters of each tool result: 50 or 370, about 100 or 420 tokens a step
		// outcome answers the compactor's call n (from 1).
		outcome func(n int, msgs []*schema.Message) ([]*schema.Message, error)
		// cancelFirst ends the first job's ctx while its compactor waits
		// (as Close or its age limit would) instead of letting it answer.
		cancelFirst bool
		// failRound reports a failed summarizer round before each outcome,
		// as a SummarizationCompactor with RaiseOnFailure false does.
		failRound bool
		// wantStarts: the calls (below the trigger) that started a
		// preparation, each running the compactor once.
		wantStarts []int
		// wantPrepared: the call at the trigger applies a prepared result
		// without compacting synchronously.
		wantPrepared bool
	}{
		{
			name: "fails once at PrepareAt: prepared again 8 calls later, applied at the trigger", stepLen: 50,
			outcome: func(n int, msgs []*schema.Message) ([]*schema.Message, error) {
				if n == 1 {
					return fails(msgs)
				}
				return works(msgs)
			},
			wantStarts: []int{0, 8}, wantPrepared: true,
		},
		{
			name: "fails once at PrepareAt, big steps: prepared again once grown by 10 %", stepLen: 370,
			outcome: func(n int, msgs []*schema.Message) ([]*schema.Message, error) {
				if n == 1 {
					return fails(msgs)
				}
				return works(msgs)
			},
			wantStarts: []int{0, 3}, wantPrepared: true,
		},
		{
			name: "always fails: one try every 8 calls", stepLen: 50,
			outcome:    func(_ int, msgs []*schema.Message) ([]*schema.Message, error) { return fails(msgs) },
			wantStarts: []int{0, 8, 16, 24, 32, 40, 48},
		},
		{
			name: "always fails, big steps: one try per 10 % of growth", stepLen: 370,
			outcome:    func(_ int, msgs []*schema.Message) ([]*schema.Message, error) { return fails(msgs) },
			wantStarts: []int{0, 3, 6, 9},
		},
		{
			// A decline without a failed summarizer round is no failure
			// (TestHookBacksOffOnlyAfterAFailure): prepared again at the
			// next call, at every one of the 50 below the trigger.
			name: "always declines without calling a model", stepLen: 50,
			outcome:    func(int, []*schema.Message) ([]*schema.Message, error) { return nil, nil },
			wantStarts: everyCall(50),
		},
		{
			name: "always declines after a failed summarizer round", stepLen: 50,
			outcome:    func(int, []*schema.Message) ([]*schema.Message, error) { return nil, nil },
			failRound:  true,
			wantStarts: []int{0, 8, 16, 24, 32, 40, 48},
		},
		{
			name: "never smaller", stepLen: 50,
			outcome:    func(_ int, msgs []*schema.Message) ([]*schema.Message, error) { return msgs, nil },
			wantStarts: []int{0, 8, 16, 24, 32, 40, 48},
		},
		{
			name: "breaks tool-call pairing once", stepLen: 50,
			outcome: func(n int, msgs []*schema.Message) ([]*schema.Message, error) {
				if n == 1 {
					return []*schema.Message{msgs[0], msgs[len(msgs)-1]}, nil // an orphaned tool result
				}
				return works(msgs)
			},
			wantStarts: []int{0, 8}, wantPrepared: true,
		},
		{
			name: "job's ctx ended: prepared again at once", stepLen: 50, cancelFirst: true,
			outcome: func(_ int, msgs []*schema.Message) ([]*schema.Message, error) { return works(msgs) },
			// The compactor of call 0 returns ctx.Err(); that is no failure.
			wantStarts: []int{0, 1}, wantPrepared: true,
		},
		{
			name: "works: prepared once", stepLen: 50,
			outcome:    func(_ int, msgs []*schema.Message) ([]*schema.Message, error) { return works(msgs) },
			wantStarts: []int{0}, wantPrepared: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			release := make(chan struct{})
			comp := CompactorFunc(func(ctx context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				n := int(calls.Add(1))
				if n == 1 && tc.cancelFirst {
					close(release)
					<-ctx.Done()
					return nil, ctx.Err()
				}
				if tc.failRound {
					reportRound(ctx, Round{Err: errDown})
				}
				return tc.outcome(n, msgs)
			})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 10000, TokenCounter: fc1,
				Logger: discardLogger(), CompactTo: 0.1, PrepareAt: 0.2, CompactAt: 0.7})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close(context.Background()) })
			ctx := context.Background()
			msgs := []*schema.Message{sys("rules"), user("the task")}
			var starts []int
			first := -1 // the step of the first call at PrepareAt
			for step := 0; ; step++ {
				id := fmt.Sprintf("c%d", step)
				msgs = append(msgs[:len(msgs):len(msgs)], call(id), result(id, rep("x", tc.stepLen)))
				st := &hooks.State{Messages: msgs, StepCount: step}
				before := calls.Load()
				r, err := h.Decide(ctx, st)
				if err != nil && !errors.Is(err, errDown) {
					t.Fatalf("step %d: %v", step, err)
				}
				if first < 0 && float64(r.Estimated) >= 2000 {
					first = step
				}
				if r.Triggered {
					if r.Prepared != tc.wantPrepared || r.Compacted != tc.wantPrepared || r.Deferred {
						t.Errorf("at the trigger (call %d): Prepared=%v Compacted=%v Deferred=%v Err=%v, want a prepared result applied = %v",
							step-first, r.Prepared, r.Compacted, r.Deferred, r.Err, tc.wantPrepared)
					}
					if err := h.WaitPrepared(ctx); err != nil {
						t.Fatal(err)
					}
					// Applied, the result leaves the call above
					// PrepareAt, so the next one is prepared at once.
					if want := before + int32(btoi(r.Preparing)); tc.wantPrepared && calls.Load() != want {
						t.Errorf("at the trigger: the call ran the compactor %d times, want %d (no synchronous compaction)", calls.Load()-before, want-before)
					}
					break
				}
				if r.Preparing {
					starts = append(starts, step-first)
				}
				// The previous job is finished (WaitPrepared), so only a
				// preparation started now can call the compactor.
				if calls.Load() != before && !r.Preparing {
					t.Errorf("call %d: the compactor ran without a preparation", step-first)
				}
				if tc.cancelFirst && step == first {
					<-release
					j, _ := h.e.Jobs.Find(msgs, false, time.Now())
					j.Cancel()
				}
				if err := h.WaitPrepared(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(starts, tc.wantStarts) {
				t.Errorf("preparations started at calls %v, want %v", starts, tc.wantStarts)
			}
		})
	}
}

// TestPreparedRunningNotReplaced: a prepared compaction still running when
// the backoff would let a failed one be replaced is kept, however long its
// summarizer takes: the conversation grows past 10 % of the window and 8
// calls pass, and no second compactor call starts.
func TestPreparedRunningNotReplaced(t *testing.T) {
	t.Parallel()
	c := &ppCompactor{gate: make(chan struct{})}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 10000, TokenCounter: fc1,
		Logger: discardLogger(), CompactTo: 0.1, PrepareAt: 0.2, CompactAt: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	msgs := []*schema.Message{sys("rules"), user("the task")}
	preparing := 0
	for step := range 40 { // about 100 tokens a step: PrepareAt at step 19
		id := fmt.Sprintf("c%d", step)
		msgs = append(msgs[:len(msgs):len(msgs)], call(id), result(id, rep("x", 50)))
		r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs, StepCount: step})
		if err != nil || r.Triggered {
			t.Fatalf("step %d: triggered=%v err=%v", step, r.Triggered, err)
		}
		preparing += btoi(r.Preparing)
	}
	close(c.gate)
	if err := h.WaitPrepared(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(c.callsNow()); preparing != 1 || n != 1 {
		t.Errorf("%d preparations, %d compactor calls; want one of each", preparing, n)
	}
}

// everyCall is 0, 1, ..., n-1.
func everyCall(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
