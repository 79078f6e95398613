package shape

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/internal/marker"
)

// The notation of hooks/compaction's tests (reference-behaviour.md §0.1).

func sys(text string) *schema.Message  { return schema.SystemMessage(text) }
func user(text string) *schema.Message { return schema.UserMessage(text) }
func asst(text string) *schema.Message { return schema.AssistantMessage(text, nil) }
func rep(s string, n int) string       { return strings.Repeat(s, n) }

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

// summary is a summary message of n messages, as compaction.NewSummaryMessage writes it.
func summary(text string, n int) *schema.Message {
	m := schema.UserMessage("<conversation_summary>\n" + text + "\n</conversation_summary>")
	m.Extra = map[string]any{marker.Key: message.NewFields(message.StrategySummarization, n, nil)}
	return m
}

// fresh is a system prompt, a request and two calls with their results.
func fresh() []*schema.Message {
	return []*schema.Message{
		sys("rules"), user("start"),
		call("c1"), result("c1", rep("first result ", 12)),
		call("c2"), result("c2", rep("second result ", 12)),
	}
}

func TestTurnUnitsShape(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{user("q"), asst("a"), user("q2"), call("x"), result("x", "r"), asst("done")}
	got := turnUnits(msgs, [][]int{{0, 1}, {2, 3, 4, 5}})
	want := [][]int{{0, 1}, {2, 3, 4}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
	if got := turnUnits(msgs, [][]int{{0}}); !reflect.DeepEqual(got, [][]int{{0}}) {
		t.Errorf("a request alone is one unit: %v", got)
	}
}
