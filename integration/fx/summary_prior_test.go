package compactfx

import (
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// approximate_summary_tokens is left to the library unless the file writes
// it. Left out, the compactor gets no ApproximateSummaryTokens and plans
// with the library's prior, which follows the size of what a round replaces
// (its floor is the prior of the smallest round: its fixed 64 tokens plus the
// identifier ledger's block at its smallest cap, 256 tokens by default or
// ledger.max_tokens, or nothing with the ledger off), instead of a fixed 1,024 tokens
// that a 2,000-token window's target of 800 cannot hold. A value written in
// the file replaces the prior (the floor becomes that value), must be at
// least 1 (0 used to be read as "the prior", so a written 0 was silently
// ignored), and is checked against the target at startup.
func TestSummaryPriorDefaultSuitsSmallWindows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		yaml      string // the summarize block's extra line, "" for none
		wantFloor int    // the summarization compactor's MinimumTokens
		wantErr   string // "" when the app must start
	}{
		{"key left out", "", 64 + 256, ""},
		{"key left out, ledger capped", "ledger: {max_tokens: 100}", 64 + 100, ""},
		{"key left out, ledger off", "ledger: {enabled: false}", 64, ""},
		{"a value that fits the target", "approximate_summary_tokens: 300", 300, ""},
		{"the smallest value", "approximate_summary_tokens: 1", 1, ""},
		{"zero written", "approximate_summary_tokens: 0", 0, "compaction.summarize.approximate_summary_tokens = 0: must be at least 1"},
		{"negative written", "approximate_summary_tokens: -5", 0, "compaction.summarize.approximate_summary_tokens = -5: must be at least 1"},
		{"a value the target cannot hold", "approximate_summary_tokens: 1024", 0, "1024"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 2000\n  summarize:\n    min_keep_steps: 1\n"
			if tc.yaml != "" {
				file += "    " + tc.yaml + "\n"
			}
			cfg, err := parse([]byte(file))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if !strings.HasPrefix(tc.yaml, "approximate") && cfg.Compaction.Summarize.ApproximateSummaryTokens != nil {
				t.Fatalf("key left out, config has %d; want nil", *cfg.Compaction.Summarize.ApproximateSummaryTokens)
			}
			err = cfg.Validate()
			var hook *compaction.CompactionHook
			if err == nil {
				app := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&hook))
				err = app.Err()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if _, target := hook.Thresholds(); target != 800 {
				t.Fatalf("target %d tokens, want 800", target)
			}
			floor, ok := hook.Compactor().(compaction.SizeFloor)
			if !ok {
				t.Fatalf("compactor %T reports no floor", hook.Compactor())
			}
			if got := floor.MinimumTokens(); got != tc.wantFloor {
				t.Fatalf("compactor floor %d tokens, want %d", got, tc.wantFloor)
			}
			fxtest.New(t, fx.NopLogger, Module(cfg)).RequireStart().RequireStop()
		})
	}
}
