package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/adk"

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
// counting, building the new conversation.
func BenchmarkCompact(b *testing.B) {
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	for _, n := range benchSizes {
		msgs := fixture(n, true)
		total, _ := counter.Count(ctx, msgs, nil)
		b.Run(fmt.Sprintf("n=%d/einocompact", n), func(b *testing.B) {
			c := fixtureCompactor(b)
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.Compact(ctx, msgs, total*4/10, counter)
				if err != nil || out == nil {
					b.Fatalf("compact: %d messages, err=%v", len(out), err)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/eino", n), func(b *testing.B) {
			mw := fixtureEino(b, 1)
			state := &adk.ChatModelAgentState{Messages: msgs, ToolInfos: Tools()}
			mc := &adk.ModelContext{}
			b.ReportAllocs()
			for b.Loop() {
				_, out, err := mw.BeforeModelRewriteState(ctx, state, mc)
				if err != nil || len(out.Messages) >= len(msgs) {
					b.Fatalf("err=%v", err)
				}
			}
		})
	}
}
