package compaction

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// FuzzCompactors: the invariants every compactor shares (input untouched,
// result nil or strictly smaller, system block, task anchor and newest steps
// kept, survivors in order, only marked messages added, no orphans), for the
// sliding window, tool result pruning and pipelines mixing them with
// summarization, over chained rounds with steps appended in between.
func FuzzCompactors(f *testing.F) {
	f.Add([]byte("\x02\x03\x03\x05\x00\x07\x04\x04"), uint16(100), uint8(1), uint8(0))
	f.Add([]byte("\x01\x00\x02\x00\x03\x03\x01\x04\x04\x02\x06\x06"), uint16(20), uint8(0), uint8(0x09))
	f.Add([]byte("\x00\x07\x09\x00\x03\x08\x05\x01\x03\x03\x03"), uint16(0), uint8(2), uint8(0x1e))
	f.Fuzz(func(t *testing.T, conv []byte, target uint16, minKeep uint8, knobs uint8) {
		defer fzWatchdog(20 * time.Second)()
		ctx := context.Background()
		keep := int(minKeep % 4)
		pruneKeep, minTokens := max(keep, 1), int(minKeep>>2)*8
		counter := []TokenCounter{fc1, fc4, DefaultCounter(), TokenCounterFunc(fc1.Count)}[knobs>>3&3]
		var note *string
		if knobs&0x20 != 0 {
			note = new("")
		}
		sw, err := NewSlidingWindowCompactor(ctx, &SlidingWindowConfig{MinKeepSteps: &keep, OmissionNote: note})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := NewToolResultPruningCompactor(ctx, &ToolResultPruningConfig{MinKeepSteps: &pruneKeep, MinTokens: &minTokens})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: &fzSummarizer{script: conv}, MinKeepSteps: &keep,
			ApproximateSummaryTokens: new(1 + int(target%64)), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		var c Compactor
		effectiveKeep := keep
		switch knobs & 7 {
		case 0, 1:
			c = sw
		case 2, 3:
			c, effectiveKeep = pr, pruneKeep
		case 4:
			c, err = NewPipeline(pr, sw)
		case 5:
			c, err = NewPipeline(pr, sum)
		default:
			c, err = NewPipeline(pr, sum, sw)
		}
		if err != nil {
			t.Fatal(err)
		}
		b := &fzBuilder{r: &fzReader{b: conv}}
		b.system()
		b.grow(40)
		for round := range 1 + int(knobs>>6) {
			in := b.msgs
			if err := invToolPairing(in); err != nil {
				t.Fatalf("round %d: the builder made a malformed input: %v", round, err)
			}
			fingerprint, ptrs := invFingerprint(in), slices.Clone(in)
			before, _ := counter.Count(ctx, in, nil)
			out, err := c.Compact(ctx, in, int(target), counter)
			if err != nil {
				t.Fatalf("round %d: %T failed: %v", round, c, err)
			}
			if !slices.Equal(in, ptrs) {
				t.Fatalf("round %d: the input slice was rewritten", round)
			}
			if before <= int(target) && out != nil {
				t.Fatalf("round %d: input fits (%d <= %d) but %T compacted it", round, before, target, c)
			}
			after := 0
			if out != nil {
				after, _ = counter.Count(ctx, out, nil)
			}
			if err := invCompacted(in, fingerprint, out, before, after, effectiveKeep,
				StrategySlidingWindow, StrategyToolResultPruning, StrategySummarization); err != nil {
				t.Fatalf("round %d, %T (target %d, %d tokens before): %v", round, c, target, before, err)
			}
			if out != nil {
				b.msgs = out
			}
			b.settle()
			b.grow(4)
		}
	})
}

// TestCompactorsAcceptEmptyConversation: nothing to do is (nil, nil) for every compactor.
func TestCompactorsAcceptEmptyConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sw, _ := NewSlidingWindowCompactor(ctx, nil)
	pr, _ := NewToolResultPruningCompactor(ctx, nil)
	sum, _ := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: &fzSummarizer{}})
	for _, c := range []Compactor{sw, pr, sum} {
		for _, msgs := range [][]*schema.Message{nil, {}} {
			if out, err := c.Compact(ctx, msgs, 0, fc1); out != nil || err != nil {
				t.Errorf("%T on an empty conversation = %v, %v; want nil, nil", c, out, err)
			}
		}
	}
}
