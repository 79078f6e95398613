package message

import (
	"math"
	"testing"

	"github.com/cloudwego/eino/schema"
)

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

func TestLastAssistantIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msgs []*schema.Message
		want int
	}{
		{nil, -1},
		{[]*schema.Message{user("u")}, -1},
		{[]*schema.Message{user("u"), asst("a")}, 1},
		{[]*schema.Message{call("c"), result("c", "r")}, 0},
		{[]*schema.Message{call("c"), result("c", "r"), call("d"), result("d", "r")}, 2},
	}
	for i, tc := range tests {
		if got := LastAssistant(tc.msgs); got != tc.want {
			t.Errorf("case %d: %d, want %d", i, got, tc.want)
		}
	}
}

func TestNewMarkerCopiesFields(t *testing.T) {
	t.Parallel()
	fields := map[string]any{"removed_messages": 3, "strategy": "ignored"}
	m := NewFields("sliding_window", 0, fields)
	if m["strategy"] != "sliding_window" || m["removed_messages"] != 3 {
		t.Errorf("NewFields = %v", m)
	}
	if _, has := m["summarized_messages"]; has {
		t.Error("summarized_messages set for n = 0")
	}
	if fields["strategy"] != "ignored" {
		t.Error("NewFields mutated its fields argument")
	}
}

// TestMarkerIntRejectsUnsignedOverflow: an unsigned count too large for int
// is not a count, whichever unsigned type holds it; it must not come back
// wrapped round to a negative number.
func TestMarkerIntRejectsUnsignedOverflow(t *testing.T) {
	t.Parallel()
	for _, v := range []any{uint(math.MaxUint64), uint64(math.MaxUint64), uint(1) << 63} {
		if n, ok := Int(v); ok {
			t.Errorf("Int(%T %v) = %d, true; want false", v, v, n)
		}
	}
	if n, ok := Int(uint(7)); !ok || n != 7 {
		t.Errorf("Int(uint 7) = %d, %v; want 7, true", n, ok)
	}
}
