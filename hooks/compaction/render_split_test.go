package compaction

import (
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestRenderCountsSplitSequencesAsSent: a tool message's texts are rendered
// with no separator, so an invalid tail of one and the bytes that begin the
// next can make a valid code point in the rendering ("\xe2\x82"+"\xac" is
// "€"). The provider receives each text as a JSON string of its own, every
// invalid byte a U+FFFD, and the counter charges that; FuzzRender's
// arithmetic must agree. Before its measure sanitized each text, these
// failed with the counter charging 2 code points more than the rendering.
func TestRenderCountsSplitSequencesAsSent(t *testing.T) {
	t.Parallel()
	counter, err := NewApproximateTokenCounter(&ApproximateConfig{CharsPerToken: 1})
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) schema.MessageInputPart {
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s}
	}
	out := func(s string) schema.MessageOutputPart {
		return schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: s}
	}
	for _, tc := range []struct {
		name string
		msg  *schema.Message
		want int // code points the provider receives for the message
	}{
		{"content then input part", &schema.Message{Role: schema.Tool, ToolName: "t", Content: "a\xe2\x82",
			UserInputMultiContent: []schema.MessageInputPart{text("\xac")}}, len("[tool:t] ") + 4},
		{"two input parts", &schema.Message{Role: schema.Tool, ToolName: "t",
			UserInputMultiContent: []schema.MessageInputPart{text("\xe2"), text("\x82\xac")}}, len("[tool:t] ") + 3},
		{"input then output part", &schema.Message{Role: schema.Tool, ToolName: "t",
			UserInputMultiContent: []schema.MessageInputPart{text("\xe2\x82")}, AssistantGenMultiContent: []schema.MessageOutputPart{out("\xac")}}, len("[tool:t] ") + 3},
		{"valid parts", &schema.Message{Role: schema.Tool, ToolName: "t",
			UserInputMultiContent: []schema.MessageInputPart{text("€"), text("x")}}, len("[tool:t] ") + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := counter.MessageCost(tc.msg).Units; got != tc.want {
				t.Errorf("MessageCost = %d code points, want %d", got, tc.want)
			}
			fzCheckRender(t, counter, []*schema.Message{tc.msg}, 0)
		})
	}
}
