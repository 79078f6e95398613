package count

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// The notation of hooks/compaction's tests (helpers_test.go, render_test.go,
// counter_test.go), for the tests that moved here with the counter.

func user(text string) *schema.Message { return schema.UserMessage(text) }
func asst(text string) *schema.Message { return schema.AssistantMessage(text, nil) }

// call is an assistant message with no text and one call to search({}) per id.
func call(ids ...string) *schema.Message {
	tcs := make([]schema.ToolCall, 0, len(ids))
	for _, id := range ids {
		tcs = append(tcs, schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: "{}"}})
	}
	return schema.AssistantMessage("", tcs)
}

// result is the result of call id from the search tool.
func result(id, text string) *schema.Message {
	return schema.ToolMessage(text, id, schema.WithToolName("search"))
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

func userParts(parts ...schema.MessageInputPart) *schema.Message {
	return &schema.Message{Role: schema.User, UserInputMultiContent: parts}
}

func imagePart(mime string, extra map[string]any) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{MIMEType: mime, Extra: extra}}}
}

func filePart(name, mime string, extra map[string]any) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL,
		File: &schema.MessageInputFile{Name: name, MessagePartCommon: schema.MessagePartCommon{MIMEType: mime, Extra: extra}}}
}

func textPart(s string) schema.MessageInputPart {
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s}
}

// rendered is compaction.Render(msgs, RenderOptions{}), for failure messages.
func rendered(msgs []*schema.Message) string {
	var b strings.Builder
	render.Write(&b, msgs, render.Options{})
	return b.String()
}
