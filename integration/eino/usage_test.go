package einoint

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

func TestContextTokens(t *testing.T) {
	t.Parallel()
	reply := func(p, c, total int) *schema.Message {
		return &schema.Message{Role: schema.Assistant, Content: "a",
			ResponseMeta: &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: p, CompletionTokens: c, TotalTokens: total}}}
	}
	marked := &schema.Message{Role: schema.User, Content: "s", Extra: map[string]any{compaction.MetaKey: map[string]any{"strategy": "x"}}}
	u := schema.UserMessage("q")
	tr := schema.ToolMessage("r", "c1")
	tests := []struct {
		name string
		msgs []*schema.Message
		want int
	}{
		{"empty", nil, 0},
		{"no assistant", []*schema.Message{u}, 0},
		{"prompt plus completion", []*schema.Message{u, reply(90, 10, 0)}, 100},
		{"total when parts are zero", []*schema.Message{u, reply(0, 0, 77)}, 77},
		{"parts win over total", []*schema.Message{u, reply(5, 5, 999)}, 10},
		{"zeros are unknown", []*schema.Message{u, reply(0, 0, 0)}, 0},
		{"only the last reply counts", []*schema.Message{u, reply(50, 5, 55), tr, {Role: schema.Assistant}}, 0},
		{"tool results after the reply are fine", []*schema.Message{u, reply(50, 5, 55), tr}, 55},
		{"marker after the reply makes it stale", []*schema.Message{u, reply(50, 5, 55), marked, tr}, 0},
		{"marker before the reply does not", []*schema.Message{marked, u, reply(50, 5, 55)}, 55},
		{"nil messages are skipped", []*schema.Message{u, reply(50, 5, 55), nil}, 55},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ContextTokens(tt.msgs); got != tt.want {
				t.Errorf("ContextTokens() = %d, want %d", got, tt.want)
			}
		})
	}
}
