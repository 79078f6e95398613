package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// TestHookFallsBackWhenSummarizationFails: when every summarizer round
// fails (RaiseOnFailure false) and the coming call is still estimated above
// the window, the hook compacts without a model, tool-result pruning first,
// then the sliding window, and reports which ran; Report.Err keeps the
// summarizer's error. Below the window, or with DisableFallback, nothing
// replaces the failed summary.
func TestHookFallsBackWhenSummarizationFails(t *testing.T) {
	t.Parallel()
	down := errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
	const window = 1000 // trigger 700, target 400 (fc1: a token a character)
	tests := []struct {
		name         string
		conv         []*schema.Message
		disable      bool
		wantFallback string
	}{
		{
			name: "one old tool result is enough to prune",
			conv: []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", rep("page ", 200)),
				call("c2"), result("c2", "ok"), call("c3"), result("c3", "ok")},
			wantFallback: StrategyToolResultPruning,
		},
		{
			name: "pruning is not enough: the sliding window follows",
			conv: []*schema.Message{sys("rules"), user("old question"), asst(rep("old answer ", 40)), user("task"),
				call("c1"), result("c1", rep("page ", 80)), call("c2"), result("c2", "ok")},
			wantFallback: StrategyToolResultPruning + "+" + StrategySlidingWindow,
		},
		{
			name: "no tool result to prune: the sliding window alone",
			conv: []*schema.Message{sys("rules"), user("old question"), asst(rep("old answer ", 90)), user("task"),
				call("c1"), result("c1", "ok")},
			wantFallback: StrategySlidingWindow,
		},
		{
			name: "below the window: no fallback",
			conv: []*schema.Message{sys("rules"), user("old question"), asst(rep("old answer ", 70)), user("task"),
				call("c1"), result("c1", "ok")},
		},
		{
			name: "DisableFallback",
			conv: []*schema.Message{sys("rules"), user("old question"), asst(rep("old answer ", 90)), user("task"),
				call("c1"), result("c1", "ok")},
			disable: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			comp, _, _ := scNew(t, &scModel{t: t, fixed: &scStep{err: down}}, scConfig{})
			var observed Report
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: window, TokenCounter: fc1,
				Logger: discardLogger(), DisableFallback: tc.disable,
				Observer: ObserverFunc(func(_ context.Context, r Report) { observed = r })})
			if err != nil {
				t.Fatal(err)
			}
			in := slices.Clone(tc.conv)
			st := &hooks.State{Messages: tc.conv, StepCount: 4}
			before := count(fc1, tc.conv...)
			r, err := h.Decide(context.Background(), st)
			if err != nil || !r.Triggered {
				t.Fatalf("triggered=%v err=%v", r.Triggered, err)
			}
			if !errors.Is(r.Err, down) {
				t.Errorf("Report.Err = %v, want the summarizer's error", r.Err)
			}
			if r.Fallback != tc.wantFallback || observed.Fallback != tc.wantFallback {
				t.Fatalf("Fallback = %q (observer %q), want %q", r.Fallback, observed.Fallback, tc.wantFallback)
			}
			after := count(fc1, st.Messages...)
			if tc.wantFallback == "" {
				if r.Compacted || after != before {
					t.Fatalf("compacted=%v, %d tokens from %d, want the conversation untouched", r.Compacted, after, before)
				}
				if r.Overflow != (before > window) {
					t.Errorf("Overflow = %v with %d tokens in a %d-token window", r.Overflow, before, window)
				}
				return
			}
			if !r.Compacted || after > window || r.Overflow || r.TokensAfter != after {
				t.Errorf("compacted=%v overflow=%v, %d tokens (Report %d), want a conversation that fits %d", r.Compacted, r.Overflow, after, r.TokensAfter, window)
			}
			if err := shape.NewFaults(in, st.Messages); err != nil {
				t.Errorf("the fallback broke tool-call pairing: %v", err)
			}
			if last := st.Messages[len(st.Messages)-1]; last != in[len(in)-1] {
				t.Errorf("the newest message was not kept: %q", last.Content)
			}
		})
	}
}

// TestAgentRunFallsBackWhenSummarizerIsDead: an agent whose summarizer
// refuses every call (RaiseOnFailure false) keeps working past the window:
// the model-free fallback keeps every prompt within it, and the Observer
// hears of the cause and of the fallback. With DisableFallback the provider
// rejects a prompt for its length and the run fails.
func TestAgentRunFallsBackWhenSummarizerIsDead(t *testing.T) {
	t.Parallel()
	down := errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
	for _, disable := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableFallback=%v", disable), func(t *testing.T) {
			t.Parallel()
			sum := &scModel{t: t, fixed: &scStep{err: down}}
			c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: sum, ApproximateSummaryTokens: new(20), Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var fellBack, failed int
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 400, TokenCounter: fc4,
				Logger: discardLogger(), DisableFallback: disable,
				Observer: ObserverFunc(func(_ context.Context, r Report) {
					mu.Lock()
					defer mu.Unlock()
					if errors.Is(r.Err, down) {
						failed++
					}
					if r.Fallback != "" {
						fellBack++
					}
				})})
			if err != nil {
				t.Fatal(err)
			}
			m := &arModel{window: 400}
			input := []*schema.Message{sys("be brief"), user("older request"), asst(rep("older answer ", 30)), user("collect the pages")}
			res, err := arAgent(t, m, h).Run(arWithRun(context.Background(), &arRun{steps: 12}), input)
			mu.Lock()
			defer mu.Unlock()
			if len(sum.prompts()) == 0 || failed == 0 {
				t.Fatalf("summarizer calls %d, reports with its error %d: the test proves nothing", len(sum.prompts()), failed)
			}
			if disable {
				if err == nil || fellBack != 0 {
					t.Fatalf("Run = %v with %d fallbacks; want the provider's context-length error", err, fellBack)
				}
				return
			}
			if err != nil || len(m.seenProblems()) > 0 {
				t.Fatalf("Run = %v, rejected prompts %v; want every prompt within the window", err, m.seenProblems())
			}
			if fellBack == 0 {
				t.Error("no report named a fallback")
			}
			if err := arCheckResult(res, "collect the pages"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
