package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/adk"

	"github.com/einocompact/einocompact/hooks"
)

// BenchmarkNoTrigger is the price of one model call's check when nothing is
// compacted: einocompact's CompactionHook and Eino's middleware
// BeforeModelRewriteState on the same conversation, with provider usage on
// the assistant replies (the common case) and without it.
func BenchmarkNoTrigger(b *testing.B) {
	ctx := context.Background()
	for _, usage := range []bool{true, false} {
		for _, n := range benchSizes {
			msgs := fixture(n, usage)
			name := fmt.Sprintf("usage=%v/n=%d", usage, n)
			b.Run(name+"/einocompact", func(b *testing.B) {
				h := fixtureHook(b, neverTrigger)
				state := &hooks.State{Messages: msgs, Tools: Tools(), ContextTokens: fixtureContextTokens(msgs)}
				b.ReportAllocs()
				for b.Loop() {
					r, err := h.Decide(ctx, state)
					if err != nil || r.Triggered {
						b.Fatalf("triggered=%v err=%v", r.Triggered, err)
					}
				}
			})
			b.Run(name+"/eino", func(b *testing.B) {
				mw := fixtureEino(b, neverTrigger)
				state := &adk.ChatModelAgentState{Messages: msgs, ToolInfos: Tools()}
				mc := &adk.ModelContext{}
				b.ReportAllocs()
				for b.Loop() {
					_, out, err := mw.BeforeModelRewriteState(ctx, state, mc)
					if err != nil || len(out.Messages) != len(msgs) {
						b.Fatalf("err=%v", err)
					}
				}
			})
		}
	}
}
