package compaction

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestReasoningIsCounted: reasoning the client sends adds its code points to
// the approximate count; reasoning it drops adds nothing.
func TestReasoningIsCounted(t *testing.T) {
	t.Parallel()
	c := DefaultCounter()
	ctx := context.Background()
	plain := &schema.Message{Role: schema.Assistant, Content: "done"}
	withThought := &schema.Message{Role: schema.Assistant, Content: "done", ReasoningContent: rep("é", 400)}
	dropped := &schema.Message{Role: schema.User, ReasoningContent: rep("é", 400),
		UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "done"}}}
	base, _ := c.Count(ctx, []*schema.Message{plain}, nil)
	got, _ := c.Count(ctx, []*schema.Message{withThought}, nil)
	// "[assistant] done" is 16 code points; the reasoning adds 400.
	if base != 16/4 || got != (16+400)/4 {
		t.Errorf("Count without reasoning = %d, want %d; with 400 code points of reasoning = %d, want %d", base, 16/4, got, (16+400)/4)
	}
	if n, _ := c.Count(ctx, []*schema.Message{dropped}, nil); n != len("[user] done")/4 {
		t.Errorf("reasoning the client does not send counted: %d, want %d", n, len("[user] done")/4)
	}
}
