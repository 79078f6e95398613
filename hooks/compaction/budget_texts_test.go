package compaction

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestSummarizerInputCapCutsEveryRenderedText: MaxSummarizerInputTokens
// bounds what the summarizer is sent whatever field of a message carries the
// long text: tool-call arguments, the deprecated MultiContent, parts whose
// text sits under another part type, attachment metadata, tool names.
func TestSummarizerInputCapCutsEveryRenderedText(t *testing.T) {
	t.Parallel()
	const limit = 1000
	long := rep("0123456789", 20_000) // 200,000 characters
	legacy := func(role schema.RoleType, p schema.ChatMessagePart) *schema.Message {
		return &schema.Message{Role: role, MultiContent: []schema.ChatMessagePart{p}}
	}
	tests := []struct {
		name string
		step []*schema.Message // one agent step, to be summarised
	}{
		{"write_file argument", []*schema.Message{ledgerCall("c1", "write_file", `{"path":"a.txt","content":"`+long+`"}`), result("c1", "ok")}},
		{"tool name", []*schema.Message{ledgerCall("c1", "tool_"+long, `{}`), result("c1", "ok")}},
		{"MultiContent text of an assistant", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Type: schema.ChatMessagePartTypeText, Text: long}), asst("noted")}},
		{"MultiContent text of a tool result", []*schema.Message{call("c1"), {Role: schema.Tool, ToolCallID: "c1", ToolName: "read",
			MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: long}}}}},
		{"MultiContent text under an untyped part", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Text: long}), asst("noted")}},
		{"tool result part text under an untyped part", []*schema.Message{call("c1"), {Role: schema.Tool, ToolCallID: "c1", ToolName: "read",
			UserInputMultiContent: []schema.MessageInputPart{{Text: long}}}}},
		{"attachment metadata", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Type: schema.ChatMessagePartTypeFileURL,
			FileURL: &schema.ChatMessageFileURL{URL: "https://example.com/f.pdf", Name: "f.pdf", Extra: map[string]any{"note": strings.Repeat("long note ", 20_000)}}}), asst("noted")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := append([]*schema.Message{sys("rules"), user("task")}, tc.step...)
			msgs = append(msgs, call("k1"), result("k1", "kept"), asst("done"))
			before := cloneAll(msgs)
			m := scFixed(t, "s")
			c, rounds := slNew(t, m, SummarizationConfig{MaxSummarizerInputTokens: limit, MinKeepSteps: scInt(1), Ledger: &LedgerConfig{Disabled: true}})
			if _, err := c.Compact(context.Background(), msgs, 1, DefaultCounter()); err != nil {
				t.Fatal(err)
			}
			if len(*rounds) == 0 {
				t.Fatal("no summarization round")
			}
			r := (*rounds)[0]
			if r.InputTokens > limit || r.Truncated == 0 {
				t.Errorf("round sent %d tokens with %d messages cut, want at most %d and a cut", r.InputTokens, r.Truncated, limit)
			}
			if p := m.prompts()[0]; len(p) > 8*limit || !strings.Contains(p, "characters cut to fit the summarizer's input") {
				t.Errorf("prompt of %d bytes, cut marked: %v", len(p), strings.Contains(p, "characters cut to fit"))
			}
			if !equalMessages(msgs, before) {
				t.Error("input mutated")
			}
		})
	}
}
