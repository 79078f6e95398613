package compactfx

import (
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// A small window works without approximate_summary_tokens: the key's
// default leaves the library's prior in place, which follows the size of
// what a round replaces, instead of a fixed 1,024 tokens that a 2,000-token
// window's target of 800 cannot hold (startup failed). A value written in the
// file is still honoured, and checked against the target.
func TestSummaryPriorDefaultSuitsSmallWindows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		approx int
		ok     bool
	}{
		{"key left out", 0, true},
		{"a value that fits the target", 300, true},
		{"a value the target cannot hold", 1024, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Compaction.ContextWindow = 2000
			cfg.Compaction.Summarize.ApproximateSummaryTokens = tc.approx
			var hook *compaction.CompactionHook
			app := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&hook))
			if err := app.Err(); (err == nil) != tc.ok {
				t.Fatalf("app error %v, want ok=%v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if _, target := hook.Thresholds(); target != 800 {
				t.Fatalf("target %d tokens, want 800", target)
			}
			fxtest.New(t, fx.NopLogger, Module(cfg)).RequireStart().RequireStop()
		})
	}
}
