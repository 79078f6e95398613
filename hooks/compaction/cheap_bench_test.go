package compaction

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// cbConversation is a long agent run: 20 user turns of 25 tool steps each
// (1021 messages), results of a few hundred characters.
func cbConversation() []*schema.Message {
	out := []*schema.Message{sys("rules")}
	for turn := range 20 {
		out = append(out, user(fmt.Sprint("task ", turn)))
		for step := range 25 {
			id := fmt.Sprintf("t%ds%d", turn, step)
			out = append(out, call(id), result(id, rep("payload ", 20+step*4)))
		}
	}
	return out
}

// The cheap compactors must stay linear in the conversation: a hook runs
// them before every model call of every run.
func BenchmarkCheapCompactors(b *testing.B) {
	msgs := cbConversation()
	counter := DefaultCounter()
	total, _ := counter.Count(context.Background(), msgs, nil)
	sw, _ := NewSlidingWindowCompactor(context.Background(), nil)
	pr, _ := NewToolResultPruningCompactor(context.Background(), nil)
	pipe, _ := NewPipeline(pr, sw)
	for _, c := range []struct {
		name string
		c    Compactor
	}{{"window", sw}, {"pruning", pr}, {"pipeline", pipe}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.c.Compact(context.Background(), msgs, total/3, counter)
				if err != nil || out == nil {
					b.Fatalf("Compact = %v, %v", out, err)
				}
			}
			b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "messages/s")
		})
	}
}
