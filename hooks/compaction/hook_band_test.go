package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// TestHookBandBelowTrigger: with CompactTo within 1/13 below CompactAt, a
// compaction that stops in the band above its target (planning.CloseEnough),
// where the planner also aims to spare the newest steps (its recentShare),
// must still leave the call below the trigger and the window. Before the target was
// lowered (bandBelow), the round took the older steps and left the call at
// 10,198 tokens of a 10,000-token window (CompactAt 1, CompactTo 0.95), or
// at the 9,000-token trigger (CompactAt 0.9, CompactTo 0.85), so the next
// call compacted again and summarized the large step after all.
func TestHookBandBelowTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		at, to float64
		big    int // characters of the large tool result before the newest step
	}{
		{"band above the window", 1.0, 0.95, 10000},
		{"band above the trigger", 0.9, 0.85, 8900},
		{"defaults", 0.7, 0.4, 10000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := []*schema.Message{sys("rules"), user("current task")}
			for i := range 6 {
				id := fmt.Sprintf("o%d", i)
				msgs = append(msgs, call(id), result(id, rep("x", 270)))
			}
			msgs = append(msgs, call("big"), result("big", rep("y", tc.big)), call("n"), result("n", "newest"))
			c, _, _ := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(20)})
			c.planner.Observe(400, 20) // replies seen: the planner plans ahead
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 10000,
				CompactAt: tc.at, CompactTo: tc.to, TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			st := &hooks.State{Messages: msgs, StepCount: 5}
			r, err := h.Decide(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Compacted || r.Overflow || float64(r.TokensAfter+r.Overhead) >= r.Trigger {
				t.Fatalf("compaction left %d tokens (trigger %.0f, window 10000): compacted %v, overflow %v",
					r.TokensAfter, r.Trigger, r.Compacted, r.Overflow)
			}
			st.Messages = append(slices.Clone(st.Messages), asst("next"))
			st.StepCount++
			if r, err := h.Decide(context.Background(), st); err != nil || r.Triggered {
				t.Errorf("the next call compacts again (estimate %d, trigger %.0f), err %v", r.Estimated, r.Trigger, err)
			}
		})
	}
}

// TestThresholdsBandBelowTrigger: the target is CompactTo's unless its band
// (1/planning.CloseEnough above it) would reach the trigger.
func TestThresholdsBandBelowTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		at, to float64
		target int
	}{
		{0.7, 0.4, 400},
		{0.7, 0.64, 640},  // 640 + 53 < 700
		{0.7, 0.65, 646},  // 646 + 53 = 699
		{0.9, 0.85, 830},  // 830 + 69 = 899
		{1.0, 0.95, 923},  // 923 + 76 = 999
		{1.0, 0.999, 923}, // the trigger at the window
	}
	for _, tc := range tests {
		c, _, _ := scNew(t, scFixed(t, "s"), scConfig{})
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 1000, CompactAt: tc.at, CompactTo: tc.to})
		if err != nil {
			t.Fatal(err)
		}
		trigger, target := h.Thresholds()
		if target != tc.target || target+target/planning.CloseEnough >= int(trigger) {
			t.Errorf("at %v to %v: target %d (band to %d, trigger %.0f), want %d", tc.at, tc.to, target, target+target/planning.CloseEnough, trigger, tc.target)
		}
	}
}
