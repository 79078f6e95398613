package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// The demo's numbers say where they come from: offline, "provider" tokens
// are the replay's arithmetic and the extractive summarizer counts its own
// tokens; with a live model and summarizer neither caveat is printed.
func TestLegendSaysWhereNumbersComeFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                      string
		replay, offlineSummarizer bool
		want, notWant             []string
	}{
		{"offline", true, true,
			[]string{"computed by the replay", "offline extractive summarizer reports prompt + completion tokens", "its own count"},
			nil},
		{"live model, offline summarizer", false, true,
			[]string{"the model's reply reports", "its own count"},
			[]string{"computed by the replay"}},
		{"live", false, false,
			[]string{"the model's reply reports"},
			[]string{"computed by the replay", "its own count", "extractive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			legend(&out, tt.replay, tt.offlineSummarizer)
			r := &reporter{steps: []stepStat{{est: 10, provider: 12, shadow: 10}},
				compactions: []compactionStat{{rounds: 1, attempts: 1, sumPrompt: 40, sumCompletion: 9}}}
			r.summary(&out, runSummary{model: "m", summarizer: "s", replay: tt.replay, offlineSummarizer: tt.offlineSummarizer, elapsed: time.Millisecond})
			text := out.String()
			// Every name the step and compaction lines use is explained.
			for _, name := range []string{"est", "provider", "uncompacted", compaction.TierHistoricalTurns, compaction.TierHistoricalSummaries,
				compaction.TierCurrentTaskSteps, compaction.TierCurrentTaskSummaries} {
				if !strings.Contains(text, "  "+name+" ") && !strings.Contains(text, " "+name+" (") {
					t.Errorf("the legend does not explain %q:\n%s", name, text)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("output has %q:\n%s", w, text)
				}
			}
		})
	}
}

// A triggered call that went out uncompacted says why: deferred while a
// prepared compaction is written, backed off, failed, or nothing left.
func TestUncompactedCallsSayWhy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rep           compaction.Report
		want, notWant string
	}{
		{compaction.Report{Triggered: true, Deferred: true, Estimated: 3100, Trigger: 2800}, "deferred: call ~3100 ≥ trigger 2800", "nothing left"},
		{compaction.Report{Triggered: true, BackedOff: true, Estimated: 3100, Trigger: 2800}, "backed off: call ~3100", "nothing left"},
		{compaction.Report{Triggered: true, Err: compaction.ErrNoUsableSummary, Estimated: 3100, Trigger: 2800}, "failed: " + compaction.ErrNoUsableSummary.Error(), "nothing left"},
		{compaction.Report{Triggered: true, Estimated: 3100, Trigger: 2800}, "call ~3100 ≥ trigger 2800, nothing left to compact", "deferred"},
	} {
		var out bytes.Buffer
		r := &reporter{out: &out}
		r.beforeCompaction(nil)
		r.ObserveCompaction(t.Context(), tt.rep)
		r.afterCompaction(nil)
		if got := out.String(); !strings.Contains(got, tt.want) || strings.Contains(got, tt.notWant) {
			t.Errorf("%+v printed %q; want %q and not %q", tt.rep, got, tt.want, tt.notWant)
		}
	}
}
