package extractive_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/summarizer/extractive"
	"github.com/einocompact/einocompact/summarizer/failover"
)

// alDown is a summarizer whose every call fails, as one does in an outage.
type alDown struct{}

func (alDown) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errors.New("503 service unavailable")
}

func (alDown) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("503 service unavailable")
}

// alConversation is a task with a constraint of the user's and six fetch
// steps, each result naming its file.
func alConversation() []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You fetch documents."),
		schema.UserMessage("Fetch every topic. Never fetch from the staging mirror.")}
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "fetch", Arguments: fmt.Sprintf(`{"topic":"t%d"}`, i)}}}),
			schema.ToolMessage(fmt.Sprintf("saved /srv/docs/t%d.txt\n", i)+strings.Repeat("DATA ", 100), id, schema.WithToolName("fetch")))
	}
	return msgs
}

// TestCacheAlignedExtractiveReadsTheSpan compacts with CacheAligned and the
// extractive summarizer, alone and as the offline fallback behind a dead
// summarizer (fx's fallback_offline): the summary must hold the replaced
// work, never the compactor's own instruction taken for the user's
// constraints.
func TestCacheAlignedExtractiveReadsTheSpan(t *testing.T) {
	t.Parallel()
	ex, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := failover.New(&failover.Config{Candidates: []failover.Candidate{{Name: "down", Model: alDown{}}, {Name: "offline", Model: ex}},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		model model.BaseChatModel
	}{{"extractive", ex}, {"fallback_offline", chain}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			one := 1
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: tc.model, CacheAligned: true,
				MinKeepSteps: &one, Ledger: &compaction.LedgerConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			msgs := alConversation()
			counter := compaction.DefaultCounter()
			total, err := counter.Count(ctx, msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic."}}
			out, err := c.Compact(compaction.WithRequestTools(ctx, tools), msgs, total/2, counter)
			if err != nil || out == nil {
				t.Fatalf("Compact: %v, %d messages", err, len(out))
			}
			var text string
			for _, m := range out {
				if compaction.IsStrategy(m, compaction.StrategySummarization) {
					text += m.Content
				}
			}
			if text == "" {
				t.Fatal("no summary in the result")
			}
			for _, own := range []string{"Do not call any tool", "Stop working on the task", "about to be replaced by a summary"} {
				if strings.Contains(text, own) {
					t.Errorf("the summary quotes the compactor's instruction (%q):\n%s", own, text)
				}
			}
			_, work, _ := strings.Cut(text, "## Work completed")
			work, _, _ = strings.Cut(work, "\n## ")
			if !strings.Contains(work, "/srv/docs/t1.txt") {
				t.Errorf("\"Work completed\" lacks the first replaced result:\n%s", text)
			}
		})
	}
}
