package compactfx

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// maxTokensSeen is a summarizer that records the max output tokens of each
// call and replies with a short summary.
type maxTokensSeen struct {
	mu   sync.Mutex
	seen []int // -1: the call set none
}

func (m *maxTokensSeen) Generate(_ context.Context, _ []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	n := -1
	if p := model.GetCommonOptions(nil, opts...).MaxTokens; p != nil {
		n = *p
	}
	m.mu.Lock()
	m.seen = append(m.seen, n)
	m.mu.Unlock()
	return schema.AssistantMessage("## Work completed\n- read the files", nil), nil
}

func (m *maxTokensSeen) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, fmt.Errorf("maxTokensSeen does not stream")
}

// summarizer.max_tokens bounds the max output tokens a summarization round
// sends, which would otherwise replace the client's cap with the planned
// summary size; left out, the planned size goes alone.
func TestSummarizerMaxTokensBoundsRounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		line string
		want func(n int) bool
	}{
		{"left out", "", func(n int) bool { return n > 40 }},
		{"40", "  max_tokens: 40\n", func(n int) bool { return n == 40 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 20000\n  summarize:\n    min_keep_steps: 1\nsummarizer:\n  provider: offline\n" + tc.line
			cfg, err := parse([]byte(file))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			fake := &maxTokensSeen{}
			var hook *compaction.CompactionHook
			app := fx.New(fx.NopLogger, Module(cfg), fx.Decorate(func(Summarizer) Summarizer { return fake }), fx.Populate(&hook))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{schema.SystemMessage("You read files."), schema.UserMessage("read every file")}
			for i := range 6 {
				id := fmt.Sprintf("c%d", i)
				msgs = append(msgs,
					schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
						Function: schema.FunctionCall{Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)}}}),
					schema.ToolMessage(strings.Repeat("line of file content ", 150), id, schema.WithToolName("read")))
			}
			out, err := hook.Compactor().Compact(context.Background(), msgs, 1500, nil)
			if err != nil || out == nil {
				t.Fatalf("Compact: %v, %d messages", err, len(out))
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if len(fake.seen) == 0 {
				t.Fatal("the summarizer was not called")
			}
			for i, n := range fake.seen {
				if !tc.want(n) {
					t.Errorf("call %d: max output tokens %d", i, n)
				}
			}
		})
	}
}
