package compaction

import (
	"context"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks"
)

// TestColdCacheCompactsSynchronousNearTrigger: a hook without PrepareAt
// compacts a call below the trigger when the cache has gone cold and the
// call is in the last third of the way from the target to the trigger; not
// when the cache is warm, not further down, and a hook with PrepareAt does
// not stall the agent for it.
func TestColdCacheCompactsSynchronousNearTrigger(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cold, warm := now.Add(-6*time.Minute), now.Add(-time.Minute)
	cases := []struct {
		name      string
		steps     int
		last      time.Time
		prepare   bool
		compacted bool
	}{
		{"cold, in the last third", 5, cold, false, true},
		{"warm, in the last third", 5, warm, false, false},
		{"cold, below the last third", 4, cold, false, false},
		{"cold, in the last third, with PrepareAt", 5, cold, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &ppCompactor{}
			h := coldHook(t, c, nil, now)
			if !tc.prepare {
				h.e.PrepareAt = 0
			}
			trigger, target := h.Thresholds()
			line := trigger - (trigger-float64(target))/3
			msgs := ppConv("task-0", tc.steps)
			st := &hooks.State{Messages: msgs, LastModelCallAt: tc.last}
			r, err := h.Decide(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if r.Triggered {
				t.Fatalf("the call triggered (estimated %d, trigger %.0f); the test needs it below", r.Estimated, r.Trigger)
			}
			if inBand := float64(r.Estimated) >= line; inBand != (tc.steps == 5) {
				t.Fatalf("estimated %d against the line %.0f: in the band = %v; the case needs %v", r.Estimated, line, inBand, tc.steps == 5)
			}
			if r.Compacted != tc.compacted {
				t.Fatalf("compacted = %v, want %v (cold=%v, estimated %d, line %.0f)", r.Compacted, tc.compacted, r.ColdCache, r.Estimated, line)
			}
			if !tc.compacted {
				if len(st.Messages) != len(msgs) {
					t.Fatalf("messages %d -> %d, want the call to go out unchanged", len(msgs), len(st.Messages))
				}
				return
			}
			if r.InvalidatedTokens != 0 || !r.ColdCache || len(st.Messages) >= len(msgs) {
				t.Errorf("invalidated=%d cold=%v messages %d -> %d, want a smaller call that invalidates nothing",
					r.InvalidatedTokens, r.ColdCache, len(msgs), len(st.Messages))
			}
		})
	}
}
