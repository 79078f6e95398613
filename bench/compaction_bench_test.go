package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// BenchmarkPlan is one planning round (no model call) bringing the
// conversation down to 40% of its size.
func BenchmarkPlan(b *testing.B) {
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	c := fixtureCompactor(b)
	for _, n := range benchSizes {
		msgs := fixture(n, true)
		total, _ := counter.Count(ctx, msgs, nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := c.Plan(ctx, msgs, total*4/10, counter)
				if err != nil || p.Empty() {
					b.Fatalf("plan %v err=%v", p, err)
				}
			}
		})
	}
}

// BenchmarkCompact is a full compaction with a summarizer that answers at
// once: einocompact's SummarizationCompactor down to 40% of the
// conversation, and Eino's middleware triggered on the same conversation.
// What remains is the libraries' own work: planning, rendering transcripts,
// counting, building the new conversation. The summarizer still reads its
// prompt (it counts it to size its reply), so besides ns/op each side reports
// compact-ns/op: the time outside the summarizer's Generate, the figure the
// issue 13 target (<= 10x Eino) is about.
func BenchmarkCompact(b *testing.B) {
	compactBoth(b, func() (model.BaseChatModel, func(*testing.B)) {
		sum, inside := timedSummarizer()
		return sum, func(b *testing.B) { reportOutside(b, inside) }
	})
}

// compactBoth runs, at every size, a full compaction by einocompact's
// SummarizationCompactor down to 40% of the conversation and by Eino's
// middleware triggered on the same conversation, each sub-benchmark with
// the summarizer summarizer returns, and then its report (nil: none).
func compactBoth(b *testing.B, summarizer func() (model.BaseChatModel, func(*testing.B))) {
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	for _, n := range benchSizes {
		msgs := fixture(n, true)
		total, _ := counter.Count(ctx, msgs, nil)
		b.Run(fmt.Sprintf("n=%d/einocompact", n), func(b *testing.B) {
			sum, report := summarizer()
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sum, Logger: discardLogger})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.Compact(ctx, msgs, total*4/10, counter)
				if err != nil || out == nil {
					b.Fatalf("compact: %d messages, err=%v", len(out), err)
				}
			}
			if report != nil {
				report(b)
			}
		})
		b.Run(fmt.Sprintf("n=%d/eino", n), func(b *testing.B) {
			sum, report := summarizer()
			mw := fixtureEinoModel(b, 1, sum)
			state := &adk.ChatModelAgentState{Messages: msgs, ToolInfos: Tools()}
			mc := &adk.ModelContext{}
			b.ReportAllocs()
			for b.Loop() {
				_, out, err := mw.BeforeModelRewriteState(ctx, state, mc)
				if err != nil || len(out.Messages) >= len(msgs) {
					b.Fatalf("err=%v", err)
				}
			}
			if report != nil {
				report(b)
			}
		})
	}
}

// timedSummarizer is a zero-latency Summarizer that adds the real time spent
// in each of its calls to the returned total.
func timedSummarizer() (*Summarizer, *atomic.Int64) {
	var inside atomic.Int64
	return &Summarizer{ZeroLatency: true, OnCall: func(c SummaryCall) { inside.Add(int64(c.Elapsed)) }}, &inside
}

// reportOutside reports compact-ns/op: the benchmark's time per operation
// without the time spent inside the summarizer.
func reportOutside(b *testing.B, inside *atomic.Int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds()-inside.Load())/float64(b.N), "compact-ns/op")
}
