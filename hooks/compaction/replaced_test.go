package compaction

import (
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// decoded is msgs as a Store hands them back: encoded and decoded, the same
// content at new addresses.
func decoded(t *testing.T, msgs []*schema.Message) []*schema.Message {
	t.Helper()
	raw, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var out []*schema.Message
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A compaction replaces what is gone from the conversation, whether its
// result holds the caller's messages or copies of them (issue 30 item 9).
func TestReplacedMessagesByContent(t *testing.T) {
	t.Parallel()
	call := schema.ToolCall{ID: "call_1", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}
	sys := schema.SystemMessage("system")
	user := schema.UserMessage("task")
	reply := schema.AssistantMessage("", []schema.ToolCall{call})
	result := schema.ToolMessage("package a", "call_1")
	again := schema.ToolMessage("package a", "call_2") // the same text, another call
	summary := NewSummaryMessage("read a.go", 2)
	before := []*schema.Message{sys, user, reply, result, again}
	after := []*schema.Message{sys, user, summary, again}
	cases := []struct {
		name          string
		before, after []*schema.Message
		replaced      int
	}{
		{"the same messages", before, after, 2},
		{"decoded from a store", before, decoded(t, after), 2},
		{"nothing replaced", before, decoded(t, before), 0},
		{"a repeated message counts once each", []*schema.Message{user, user, user}, []*schema.Message{user}, 2},
		{"everything replaced", before, []*schema.Message{summary}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if n := ReplacedMessages(tc.before, tc.after); n != tc.replaced {
				t.Errorf("ReplacedMessages = %d, want %d", n, tc.replaced)
			}
		})
	}
}
