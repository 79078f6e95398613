package digest

import (
	"bytes"
	"encoding/gob"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
)

// The test notation (internal/notation).
var (
	call = notation.Call
)

// Markers hold map[string]any in Extra; gob copies them only once the type
// is registered (hooks/compaction registers it for its users).
func init() { gob.Register(map[string]any{}) }

// marked is what compaction.NewMarker(StrategySummarization, n, nil) returns.
func marked(n int) map[string]any {
	return map[string]any{"strategy": "summarization", "summarized_messages": n}
}

// deepCopy returns a copy of m that shares no memory with it.
func deepCopy(m *schema.Message) *schema.Message {
	if m == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		panic(err)
	}
	var out schema.Message
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		panic(err)
	}
	return &out
}

// TestMessageDigestByContent: a copy has the digest of its original, and
// every field a message says something with changes it; ResponseMeta, which
// reports on the call that produced the message, does not.
func TestMessageDigestByContent(t *testing.T) {
	t.Parallel()
	base := func() *schema.Message {
		m := call("id-1")
		m.Content = "calling"
		m.ReasoningContent = "because"
		m.Extra = marked(3)
		m.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "part"}}
		return m
	}
	tests := []struct {
		name     string
		edit     func(m *schema.Message)
		wantSame bool
	}{
		{"a deep copy", func(*schema.Message) {}, true},
		{"usage reported", func(m *schema.Message) {
			m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 9}}
		}, true},
		{"role", func(m *schema.Message) { m.Role = schema.User }, false},
		{"content", func(m *schema.Message) { m.Content = "calling!" }, false},
		{"name", func(m *schema.Message) { m.Name = "bot" }, false},
		{"reasoning", func(m *schema.Message) { m.ReasoningContent = "since" }, false},
		{"tool call id", func(m *schema.Message) { m.ToolCalls[0].ID = "id-2" }, false},
		{"tool call arguments", func(m *schema.Message) { m.ToolCalls[0].Function.Arguments = `{"q":2}` }, false},
		{"multi-part text", func(m *schema.Message) { m.UserInputMultiContent[0].Text = "other" }, false},
		{"marker", func(m *schema.Message) { m.Extra = marked(4) }, false},
		{"tool call id of a result", func(m *schema.Message) { m.ToolCallID = "id-1" }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			orig, other := base(), deepCopy(base())
			tc.edit(other)
			if same := Of(orig) == Of(other); same != tc.wantSame {
				t.Fatalf("same digest = %v, want %v", same, tc.wantSame)
			}
			if same := Same(orig, other); same != tc.wantSame {
				t.Fatalf("Same = %v, want %v", same, tc.wantSame)
			}
		})
	}
}

// TestPrefixDigestOrderAndLength: a prefix digest tells apart the same
// messages in another order, one message more, and a split of one text
// over two messages.
func TestPrefixDigestOrderAndLength(t *testing.T) {
	t.Parallel()
	a, b := schema.UserMessage("ab"), schema.AssistantMessage("c", nil)
	base := Prefix([]*schema.Message{a, b})
	for name, other := range map[string][]*schema.Message{
		"swapped":      {b, a},
		"longer":       {a, b, b},
		"shorter":      {a},
		"resplit text": {schema.UserMessage("a"), schema.AssistantMessage("bc", nil)},
	} {
		if Prefix(other) == base {
			t.Errorf("%s: same prefix digest", name)
		}
	}
	if Prefix([]*schema.Message{deepCopy(a), deepCopy(b)}) != base {
		t.Error("copies: another prefix digest")
	}
}
