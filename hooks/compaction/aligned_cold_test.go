package compaction

import (
	"context"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks"
)

// TestColdCacheSendsTranscriptRequest: a synchronous compaction with a
// cache-aligned compactor sends the cache-aligned request while the
// agent's cache is warm, and the transcript request when it has gone cold
// (nothing of the agent's prefix is cached, and the transcript is the
// smaller request).
func TestColdCacheSendsTranscriptRequest(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		last  time.Time
		shape string
	}{
		{"warm", now.Add(-time.Minute), ShapeCacheAligned},
		{"cold", now.Add(-6 * time.Minute), ShapeTranscript},
		{"time unknown", time.Time{}, ShapeCacheAligned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
				ChatModel: scFixed(t, "## Work completed\n- steps summarized"), CacheAligned: true, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			h := coldHook(t, c, nil, now)
			h.e.PrepareAt = 0
			st := &hooks.State{Messages: ppConv("task-0", 6), LastModelCallAt: tc.last}
			r, err := h.Decide(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Triggered || !r.Compacted || len(r.Rounds) == 0 {
				t.Fatalf("triggered=%v compacted=%v rounds=%d, want a compaction at the trigger", r.Triggered, r.Compacted, len(r.Rounds))
			}
			for i, round := range r.Rounds {
				if round.Shape != tc.shape {
					t.Errorf("round %d sent the %q request, want %q", i, round.Shape, tc.shape)
				}
			}
		})
	}
}
