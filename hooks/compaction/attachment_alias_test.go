package compaction

import (
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestAttachmentsDoNotShareTheMessagesMaps: what Attachments returns is the
// caller's to keep; writing to an attachment's Extra must not reach the
// message it came from.
func TestAttachmentsDoNotShareTheMessagesMaps(t *testing.T) {
	t.Parallel()
	u := "https://example.com/a.png"
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{{
		Type:  schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &u, MIMEType: "image/png", Extra: map[string]any{"w": 10}}},
	}}}
	got := Attachments(msg)
	if len(got) != 1 || got[0].Extra["w"] != 10 {
		t.Fatalf("Attachments = %+v, want one image with w=10", got)
	}
	got[0].Extra["w"] = 99
	got[0].Extra["added"] = true
	extra := msg.UserInputMultiContent[0].Image.Extra
	if extra["w"] != 10 || len(extra) != 1 {
		t.Fatalf("the message's Extra became %v after editing the returned attachment", extra)
	}
}
