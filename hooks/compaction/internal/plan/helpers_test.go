package plan

import (
	"bytes"
	"context"
	"encoding/gob"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/internal/marker"
)

// The notation of hooks/compaction's tests (helpers_test.go), for the tests
// that moved here with the planner.

func sys(text string) *schema.Message  { return schema.SystemMessage(text) }
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

// summary is SUM(text, n): a summary message carrying the summarization marker.
func summary(text string, n int) *schema.Message {
	m := schema.UserMessage("<conversation_summary>\n" + text + "\n</conversation_summary>")
	m.Extra = map[string]any{marker.Key: map[string]any{"strategy": message.StrategySummarization, "summarized_messages": n}}
	return m
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// rendered is compaction.Render(msgs, RenderOptions{}), for failure messages.
func rendered(msgs []*schema.Message) string {
	var b strings.Builder
	render.Write(&b, msgs, render.Options{})
	return b.String()
}

// fakeCounter is FakeCounter(k) of §0.2: floor(code points of the rendering
// (messages then tools, no separator) / k), with no flat charges.
type fakeCounter struct{ k int }

func (f fakeCounter) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	n := render.RuneLen(rendered(messages)) + render.RuneLen(render.Tools(tools))
	return n / f.k, nil
}

var fc1 count.Counter = fakeCounter{k: 1}

// countOf is count of hooks/compaction's tests (a package name here):
// fc.Count with the error dropped, for computing expectations.
func countOf(fc count.Counter, messages ...*schema.Message) int {
	n, err := fc.Count(context.Background(), messages, nil)
	if err != nil {
		panic(err)
	}
	return n
}

// cloneAll deep-copies a conversation (through gob) so a test can later
// prove the original was not mutated.
func cloneAll(messages []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(m); err != nil {
			panic(err)
		}
		var c schema.Message
		if err := gob.NewDecoder(&buf).Decode(&c); err != nil {
			panic(err)
		}
		out[i] = &c
	}
	return out
}
