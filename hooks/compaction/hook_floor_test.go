package compaction

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

type flFixedFloor int

func (f flFixedFloor) Compact(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
	return nil, nil
}
func (f flFixedFloor) MinimumTokens() int { return int(f) }

// TestHookRejectsTargetBelowCompactorFloor: a target ContextWindow*CompactTo
// that cannot clear the compactor's floor would make every call compact
// again, so construction fails and says which settings clash.
func TestHookRejectsTargetBelowCompactorFloor(t *testing.T) {
	t.Parallel()
	summarizer := func(approx *int) Compactor {
		c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: &fzSummarizer{}, ApproximateSummaryTokens: approx})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ledgerOff, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: &fzSummarizer{}, Ledger: &LedgerConfig{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	pruning, err := NewToolResultPruningCompactor(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustPipe := func(stages ...Compactor) Compactor {
		p, err := NewPipeline(stages...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		c       Compactor
		window  int
		to      float64
		wantErr string  // "" accepts
		at      float64 // 0: the default CompactAt
	}{
		// 2000*0.4 = 800 tokens of target.
		{"summary as big as the target", summarizer(new(800)), 2000, 0.4, "2000*0.4 = 800 tokens is not above the 800-token floor", 0},
		{"summary just under the target", summarizer(new(799)), 2000, 0.4, "", 0},
		{"default estimate in a 2000-token window", summarizer(nil), 2000, 0, "", 0},
		// The default prior's floor: 64 tokens of headings and tags plus
		// the identifier ledger's block at its smallest cap, 256 tokens.
		{"default estimate, 150-token window (target 60, floor 64+256)", summarizer(nil), 150, 0, "320-token floor", 0},
		{"default estimate, 800-token window (target 320, floor 64+256)", summarizer(nil), 800, 0, "320-token floor", 0},
		{"default estimate, 805-token window (target 322)", summarizer(nil), 805, 0, "", 0},
		{"default estimate, ledger off, 150-token window (floor 64)", ledgerOff, 150, 0, "64-token floor", 0},
		{"default estimate, ledger off, 200-token window (target 80)", ledgerOff, 200, 0, "", 0},
		{"default summary, 4096 window", summarizer(nil), 4096, 0, "", 0},
		{"CompactTo names the clash", summarizer(new(100)), 1000, 0.1, "ContextWindow*CompactTo = 1000*0.1 = 100 tokens", 0},
		{"pipeline of summarizers takes the lowest floor", mustPipe(summarizer(new(900)), summarizer(new(700))), 2000, 0.4, "", 0},
		{"pipeline whose floors all clash", mustPipe(summarizer(new(900)), summarizer(new(800))), 2000, 0.4, "800-token floor", 0},
		{"a stage without a floor may reach the target alone", mustPipe(pruning, summarizer(new(5000))), 2000, 0.4, "", 0},
		{"custom compactor floor", flFixedFloor(50), 100, 0.5, "50-token floor of compaction.flFixedFloor", 0},
		{"zero floor", flFixedFloor(0), 10, 0.1, "", 0},
		{"no floor interface", &hookRecorder{}, 10, 0.1, "", 0},
		// The floor is checked against the target the hook aims for, which
		// Thresholds lowers when CompactTo lies close to CompactAt
		// (bandBelow), not against ContextWindow*CompactTo: at CompactAt 1
		// and CompactTo 0.99 of 1000 tokens the hook aims for 923, and a
		// floor of 950 leaves every call compacting again.
		{"floor under the lowered target", flFixedFloor(900), 1000, 0.99, "", 1},
		{"floor between the lowered target and CompactTo's", flFixedFloor(950), 1000, 0.99, "lowered to 923", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: tc.c, ContextWindow: tc.window, CompactAt: tc.at, CompactTo: tc.to})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("rejected a workable configuration: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestHookWarnsWhenFixedPartExceedsTarget: the leading system block and the
// tool schemas are never compacted; when they alone reach the target, the
// hook says so (and still tries the compactor).
func TestHookWarnsWhenFixedPartExceedsTarget(t *testing.T) {
	t.Parallel()
	tools := []*schema.ToolInfo{{Name: "search", Desc: rep("finds things ", 20)}}
	tests := []struct {
		name  string
		msgs  []*schema.Message
		tools []*schema.ToolInfo
		warn  bool
	}{
		// Window 1000 under FC1: trigger 700, target 400.
		{"long system prompt", []*schema.Message{sys(rep("rule ", 90)), user("task"), asst(rep("a", 300))}, nil, true},
		{"system prompt plus tools", []*schema.Message{sys(rep("rule ", 40)), user("task"), asst(rep("a", 500))}, tools, true},
		{"small fixed part", []*schema.Message{sys("rules"), user("task"), asst(rep("a", 800))}, nil, false},
		{"marked system message is not fixed", []*schema.Message{sys("rules"), func() *schema.Message {
			m := sys(rep("old note ", 60))
			m.Extra = map[string]any{MetaKey: map[string]any{"strategy": "custom"}}
			return m
		}(), user("task"), asst(rep("a", 300))}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			rec := &hookRecorder{}
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: rec, ContextWindow: 1000, TokenCounter: fc1,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Run(context.Background(), &hooks.State{Messages: tc.msgs, Tools: tc.tools}); err != nil {
				t.Fatal(err)
			}
			if len(rec.calls) != 1 {
				t.Fatalf("the compactor was called %d times, want 1 (the test must trigger)", len(rec.calls))
			}
			if got := strings.Contains(logs.String(), "alone reach the compaction target"); got != tc.warn {
				t.Errorf("warned = %v, want %v:\n%s", got, tc.warn, logs.String())
			}
		})
	}
}
