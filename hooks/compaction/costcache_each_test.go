package compaction

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestMessageCostsEqualMessageCost checks that the costs the planner reads
// through the cache are MessageCost's, for a conversation counted before
// (all from the cache), one that grew since (part from it), one never
// counted, one too short to be cached, and with the cache off.
func TestMessageCostsEqualMessageCost(t *testing.T) {
	t.Parallel()
	var conv []*schema.Message
	conv = append(conv, schema.SystemMessage("sys"))
	for i := range 40 {
		conv = append(conv, schema.UserMessage(fmt.Sprintf("question %d with some text é", i)),
			schema.AssistantMessage("", []schema.ToolCall{{ID: fmt.Sprint("c", i), Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"/a"}`}}}),
			schema.ToolMessage(fmt.Sprintf("result %d\nline two", i), fmt.Sprint("c", i)))
	}
	off, err := NewApproximateTokenCounter(&ApproximateConfig{DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		counter *ApproximateTokenCounter
		counted []*schema.Message
		asked   []*schema.Message
	}{
		{"counted before", DefaultCounter(), conv, conv},
		{"grown since", DefaultCounter(), conv[:50], conv},
		{"never counted", DefaultCounter(), nil, conv},
		{"short", DefaultCounter(), conv[:3], conv[:3]},
		{"cache off", off, conv, conv},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.counted != nil {
				if _, err := tt.counter.Count(context.Background(), tt.counted, nil); err != nil {
					t.Fatal(err)
				}
			}
			got := tt.counter.messageCosts(tt.asked)
			for i, m := range tt.asked {
				if want := tt.counter.MessageCost(m); got[i] != want {
					t.Fatalf("message %d: %v, MessageCost %v", i, got[i], want)
				}
			}
		})
	}
}
