package compactotel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestObserverRecords: each outcome has its own count (a deferred call is
// not a declined one), and calls that ran no compactor record no duration.
func TestObserverRecords(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	obs, err := NewObserver(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs.ObserveCompaction(ctx, compaction.Report{Compacted: true, TokensBefore: 900, TokensAfter: 300, Duration: time.Second, InvalidatedTokens: 750,
		Rounds: []compaction.Round{
			{Tier: compaction.TierHistoricalTurns, Latency: 2 * time.Second, Shape: compaction.ShapeCacheAligned, CachedTokens: 384,
				Usage: &schema.TokenUsage{PromptTokens: 500, CompletionTokens: 40}},
			{Tier: compaction.TierCurrentTaskSteps, Latency: time.Second, Shape: compaction.ShapeTranscript, Err: errors.New("down")},
		}})
	obs.ObserveCompaction(ctx, compaction.Report{Err: errors.New("down"), TokensBefore: 900, TokensAfter: 900})
	obs.ObserveCompaction(ctx, compaction.Report{TokensBefore: 900, TokensAfter: 900})
	obs.ObserveCompaction(ctx, compaction.Report{Unprofitable: true, TokensBefore: 900, TokensAfter: 900})
	// Calls that ran no compactor: one held back after a failure, one that
	// went out while its prepared compaction was being written.
	obs.ObserveCompaction(ctx, compaction.Report{Triggered: true, BackedOff: true})
	obs.ObserveCompaction(ctx, compaction.Report{Triggered: true, Deferred: true})
	// A failed summary replaced by pruning: not counted as failed nor as
	// compacted; its saving counts.
	obs.ObserveCompaction(ctx, compaction.Report{Triggered: true, Compacted: true, Err: errors.New("down"),
		Fallback: compaction.StrategyToolResultPruning, TokensBefore: 1000, TokensAfter: 400})
	// A compaction another hook wrote and this one applied from the store:
	// compacted, and said to be shared (issue 30 item 9).
	obs.ObserveCompaction(ctx, compaction.Report{Triggered: true, Compacted: true, Prepared: true, Shared: true, TokensBefore: 800, TokensAfter: 500})

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	hist := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					key := m.Name
					for _, kv := range p.Attributes.ToSlice() {
						key += "/" + string(kv.Key) + "=" + kv.Value.Emit()
					}
					sums[key] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					hist[m.Name] += p.Count
				}
			}
		}
	}
	want := map[string]int64{
		"einocompact.compactions/outcome=compacted":                                       1,
		"einocompact.compactions/outcome=failed":                                          1,
		"einocompact.compactions/outcome=declined":                                        1,
		"einocompact.tokens_saved":                                                        600 + 600 + 300,
		"einocompact.compactions/outcome=compacted/shared=true":                           1,
		"einocompact.compactions/outcome=unprofitable":                                    1,
		"einocompact.cache.invalidated":                                                   750,
		"einocompact.summarizer.rounds/ok=true/shape=cache_aligned/tier=historical_turns": 1,
		"einocompact.summarizer.rounds/ok=false/shape=transcript/tier=current_task_steps": 1,
		"einocompact.summarizer.tokens/direction=input":                                   500,
		"einocompact.summarizer.tokens/direction=output":                                  40,
		"einocompact.summarizer.tokens/direction=cached_input":                            384,
		"einocompact.compactions/outcome=backed_off":                                      1,
		"einocompact.compactions/outcome=deferred":                                        1,
		"einocompact.compactions/outcome=fallback":                                        1,
	}
	for k, v := range want {
		if sums[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, sums[k], v, sums)
		}
	}
	if hist["einocompact.summarizer.latency"] != 2 || hist["einocompact.compaction.duration"] != 6 {
		t.Errorf("histograms %v", hist)
	}
}

func TestNilProvider(t *testing.T) {
	t.Parallel()
	if _, err := NewObserver(nil); err == nil {
		t.Fatal("want an error for a nil MeterProvider")
	}
}
