package compaction

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"
)

// TestFaultsAgentRunContinuesOrFailsCleanly: the fault table at agent level.
// With RaiseOnFailure false a failing summarizer costs nothing but the
// compaction: the run still answers with a well-formed conversation. With it
// true, or when the run's ctx dies, Run fails with the cause and no result.
func TestFaultsAgentRunContinuesOrFailsCleanly(t *testing.T) {
	t.Parallel()
	for _, f := range ftFaults {
		for _, raise := range []bool{false, true} {
			t.Run(ftName(f.name, 1, raise), func(t *testing.T) {
				t.Parallel()
				ctx, cancel := ftContext(f.want)
				defer cancel()
				sum := &ftModel{script: []ftReply{f.reply}, cancel: cancel}
				c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: sum, ApproximateSummaryTokens: new(20),
					RaiseOnFailure: raise, Logger: discardLogger()})
				if err != nil {
					t.Fatal(err)
				}
				// Window 400 under FC4: the third step triggers compaction.
				h, err := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 400, TokenCounter: fc4, Logger: discardLogger()})
				if err != nil {
					t.Fatal(err)
				}
				m := &arModel{}
				input := []*schema.Message{sys("be brief"), user("older request"), asst(rep("older answer ", 30)), user("collect the pages")}
				fingerprint := invFingerprint(input)
				res, err := arAgent(t, m, h).Run(arWithRun(ctx, &arRun{steps: 6}), input)
				if invFingerprint(input) != fingerprint {
					t.Fatal("agent.Run modified the caller's messages")
				}
				if p := m.seenProblems(); len(p) > 0 {
					t.Fatalf("the agent's model was sent malformed prompts: %v", p)
				}
				if sum.callCount() == 0 {
					t.Fatal("the summarizer was never called; the test proves nothing")
				}
				isCtx := errors.Is(f.want, context.Canceled) || errors.Is(f.want, context.DeadlineExceeded)
				if raise || isCtx {
					matched := errors.Is(err, f.want) || (f.want == nil && err != nil && strings.Contains(err.Error(), f.text))
					if !matched || res != nil {
						t.Fatalf("Run = %v, %v; want no result and an error matching %v %q", res, err, f.want, f.text)
					}
					return
				}
				if err != nil {
					t.Fatalf("Run failed although RaiseOnFailure is false: %v", err)
				}
				if err := arCheckResult(res, "collect the pages"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestFaultsLeaveNoGoroutines: runs that die of a hanging or cancelled
// summarizer, or fail with RaiseOnFailure, leave no goroutine behind. Not
// parallel, so goleak sees only this test's goroutines.
func TestFaultsLeaveNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, f := range ftFaults {
		ctx, cancel := ftContext(f.want)
		sum := &ftModel{script: []ftReply{f.reply}, cancel: cancel}
		c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: sum, ApproximateSummaryTokens: new(20),
			RaiseOnFailure: true, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 400, TokenCounter: fc4, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := arAgent(t, &arModel{}, h).Run(arWithRun(ctx, &arRun{steps: 6}), []*schema.Message{user("collect the pages")}); err == nil {
			t.Errorf("%s: the run did not fail", f.name)
		}
		cancel()
	}
}
