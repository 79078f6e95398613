package count

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// The test notation (internal/notation).
var (
	user   = notation.User
	asst   = notation.Asst
	call   = notation.Call
	result = notation.Result
	rep    = notation.Rep
)

// The notation of hooks/compaction's tests (helpers_test.go, render_test.go,
// counter_test.go), for the tests that moved here with the counter.

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
