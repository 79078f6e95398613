package failover_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
	"github.com/einocompact/einocompact/summarizer/extractive"
	"github.com/einocompact/einocompact/summarizer/failover"
)

// TestReasoningPrimaryIsNotMaskedByTheFallback puts a reasoning model (over
// HTTP, the real eino-ext client) first in a chain whose last candidate is
// the extractive summarizer, as fx's fallback_offline does. Its refusal of
// max_tokens and its reply cut by hidden reasoning are the caller's to fix,
// so the chain hands them back instead of falling over: the compactor learns
// and the reasoning model writes every summary, the offline fallback none.
func TestReasoningPrimaryIsNotMaskedByTheFallback(t *testing.T) {
	t.Parallel()
	const written = "## Work completed\n- the reasoning model wrote this"
	for _, tc := range []struct {
		name    string
		option  func(int) model.Option
		retries []string
	}{
		{"defaults", nil, []string{compaction.CapRetryRejected}},
		{"max_completion_tokens", openai.WithMaxCompletionTokens, []string{compaction.CapRetryRejected, compaction.CapRetryReasoning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
				return openaitest.Text(written), nil
			}, openaitest.WithReasoning(900))
			primary, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			offline, err := extractive.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			chain, err := failover.New(&failover.Config{Candidates: []failover.Candidate{{Name: "reasoning", Model: primary},
				{Name: "offline", Model: offline}}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			var rounds []compaction.Round
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: chain,
				MaxCompletionTokensOption: tc.option, Logger: slog.New(slog.DiscardHandler),
				OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
			if err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{schema.SystemMessage("You read logs."), schema.UserMessage("Read the logs.")}
			for i := range 6 {
				id := fmt.Sprintf("c%d", i)
				msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "read", Arguments: "{}"}}}),
					schema.ToolMessage(fmt.Sprintf("/var/log/app%d.log ", i)+strings.Repeat("line ", 200), id))
			}
			counter := compaction.DefaultCounter()
			total, err := counter.Count(ctx, msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Compact(ctx, msgs, total/2, counter)
			if err != nil || out == nil {
				t.Fatalf("Compact: %v, %d messages", err, len(out))
			}
			if len(rounds) == 0 || !slices.Equal(rounds[0].CapRetries, tc.retries) {
				t.Fatalf("rounds %+v; want the first to retry for %q", rounds, tc.retries)
			}
			for i, r := range rounds {
				if r.Err != nil {
					t.Errorf("round %d: %v", i, r.Err)
				}
			}
			for _, m := range out {
				if compaction.IsStrategy(m, compaction.StrategySummarization) && !strings.Contains(m.Content, "the reasoning model wrote this") {
					t.Errorf("a summary was not the reasoning model's:\n%s", m.Content)
				}
			}
		})
	}
}
