package compaction

import (
	"context"
	"log/slog"
	"testing"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// End to end: a SummarizationCompactor over the real eino-ext client,
// talking HTTP to a chat-completions test server that spends hidden
// reasoning (openaitest.WithReasoning) or none. The hook learns the
// reasoning from the usage on the wire, reasoning_tokens included, and the
// next compaction of reasoningConversation goes deep only for the reasoning
// summarizer.
func TestReasoningCostLearnedThroughTheClient(t *testing.T) {
	t.Parallel()
	const hidden = 3000
	cases := []struct {
		name string
		opts []openaitest.Option
		want int // the reasoning a round is expected to bill
		deep bool
	}{
		{"no reasoning", nil, 0, false},
		{"reasoning model", []openaitest.Option{openaitest.WithReasoning(hidden)}, hidden, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
				return openaitest.Text("## Work completed\n- fetched s0 and s1"), nil
			}, tc.opts...)
			chat, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: chat, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 4000, CompactAt: 0.7, CompactTo: 0.6,
				TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), Prices: &PricesOpenAI})
			if err != nil {
				t.Fatal(err)
			}
			first, err := h.Decide(ctx, &hooks.State{Messages: reasoningConversation()})
			if err != nil || !first.Compacted || len(first.Rounds) == 0 {
				t.Fatalf("first compaction: compacted %v, %d rounds, err %v", first.Compacted, len(first.Rounds), err)
			}
			if first.Deep {
				t.Fatal("the first compaction went deep before any round was seen")
			}
			for i, rd := range first.Rounds {
				if rd.Usage == nil || rd.Usage.CompletionTokensDetails.ReasoningTokens != tc.want {
					t.Fatalf("round %d usage %+v, want %d reasoning tokens on the wire", i, rd.Usage, tc.want)
				}
			}
			if got := h.e.Outputs.Reasoning(); got != tc.want {
				t.Fatalf("learned reasoning per round %d, want %d", got, tc.want)
			}
			cyc, err := h.e.CycleOf(ctx, reasoningConversation(), first.Estimated)
			if err != nil {
				t.Fatal(err)
			}
			if got := cyc.Reasoning; got != tc.want {
				t.Fatalf("the cost model prices %d reasoning tokens a round, want %d", got, tc.want)
			}
			second, err := h.Decide(ctx, &hooks.State{Messages: reasoningConversation()})
			if err != nil || !second.Compacted {
				t.Fatalf("second compaction: compacted %v, err %v", second.Compacted, err)
			}
			if second.Deep != tc.deep {
				t.Errorf("second compaction Deep %v, want %v", second.Deep, tc.deep)
			}
		})
	}
}
