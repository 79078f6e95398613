package compaction

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// reasoningConversation: a system prompt of 400 fc1 tokens, the user's
// request, then three tool steps of about 1,000 tokens each; a call of
// about 3,600 tokens in a 4,000-token window, above the trigger at 0.7.
// Each step is a quarter of the window: a compaction to CompactTo (0.6)
// buys less than one call, a deep one (a fifth of the window verbatim)
// more than one.
func reasoningConversation() []*schema.Message {
	msgs := []*schema.Message{sys(rep("r", 400)), user("current request")}
	for _, id := range []string{"s0", "s1", "s2"} {
		msgs = append(msgs, call(id), result(id, rep("x", 1000)))
	}
	return msgs
}

// usageCompactor reports one round with usage per call, as a summarizer
// round does, and drops the oldest tool step.
func usageCompactor(usage schema.TokenUsage) Compactor {
	return CompactorFunc(func(ctx context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
		u := usage
		reportRound(ctx, Round{Usage: &u})
		return append([]*schema.Message{msgs[0], msgs[1]}, msgs[4:]...), nil
	})
}

// The cost model prices the summarizer's hidden reasoning, learned from its
// rounds' usage, as a cost per compaction: with steps so large that a
// compaction to CompactTo buys less than one call, the first compaction, priced
// on the summary alone, aims at CompactTo under either summarizer; after
// rounds that reported 3,000 reasoning tokens the next compaction goes deep
// (fewer, deeper compactions), and after rounds that reported none it does
// not.
func TestReasoningSummarizerGetsDeeperCompactions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		usage schema.TokenUsage
		deep  bool
	}{
		{"no reasoning", schema.TokenUsage{PromptTokens: 9000, CompletionTokens: 400}, false},
		{"no usage", schema.TokenUsage{}, false},
		{"3,000 reasoning tokens", schema.TokenUsage{PromptTokens: 9000, CompletionTokens: 3400,
			CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: 3000}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: usageCompactor(tc.usage), ContextWindow: 4000,
				CompactAt: 0.7, CompactTo: 0.6, TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), Prices: &PricesOpenAI})
			if err != nil {
				t.Fatal(err)
			}
			first, err := h.Decide(context.Background(), &hooks.State{Messages: reasoningConversation()})
			if err != nil || !first.Compacted {
				t.Fatalf("first compaction: compacted %v, err %v", first.Compacted, err)
			}
			// Once its round is seen, a compaction that bought less than two
			// steps may go deeper (Deeper, issue 32 item 5); its first
			// round is priced on the prior.
			if first.Deep && !first.Deeper {
				t.Fatalf("the first compaction went deep before any round was seen; the prior is the summary alone")
			}
			second, err := h.Decide(context.Background(), &hooks.State{Messages: reasoningConversation()})
			if err != nil || !second.Compacted {
				t.Fatalf("second compaction: compacted %v, err %v", second.Compacted, err)
			}
			if second.Deep != tc.deep {
				t.Errorf("second compaction Deep %v, want %v (learned reasoning per round %d)", second.Deep, tc.deep, h.e.Outputs.Reasoning())
			}
		})
	}
}
