package compaction

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// Notation of reference-behaviour.md §0.1 (internal/notation), shared by
// every test in the package. Add helpers of your own with a file-specific
// prefix to avoid collisions.
var (
	sys     = notation.Sys
	user    = notation.User
	asst    = notation.Asst
	call    = notation.Call
	result  = notation.Result
	summary = notation.Summary
	rep     = notation.Rep
)

// note is a message marked by another strategy.
func note(strategy, text string) *schema.Message {
	m := schema.UserMessage(text)
	m.Extra = map[string]any{MetaKey: map[string]any{"strategy": strategy}}
	return m
}

// fresh is FRESH of §0.2: per-message chars [14,12,35,170,35,182].
func fresh() []*schema.Message {
	return []*schema.Message{
		sys("rules"), user("start"),
		call("c1"), result("c1", rep("first result ", 12)),
		call("c2"), result("c2", rep("second result ", 12)),
	}
}

// fakeCounter is FakeCounter(k) of §0.2: floor(code points of the rendering
// (messages then tools, no separator) / k), with no flat charges.
type fakeCounter struct{ k int }

func (f fakeCounter) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	n := render.RuneLen(Render(messages, RenderOptions{})) + render.RuneLen(RenderTools(tools))
	return n / f.k, nil
}

var (
	fc1 TokenCounter = fakeCounter{k: 1}
	fc4 TokenCounter = fakeCounter{k: 4}
)

// count is fc.Count with the error dropped, for computing expectations.
func count(fc TokenCounter, messages ...*schema.Message) int {
	n, err := fc.Count(context.Background(), messages, nil)
	if err != nil {
		panic(err)
	}
	return n
}

// cloneAll deep-copies a conversation through JSON-independent copying so a
// test can later prove the original was not mutated.
func cloneAll(messages []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		out[i] = deepCopy(m)
	}
	return out
}

// ledgerCall is an assistant message with no text and one call to name(args)
// with the given id.
func ledgerCall(id, name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: name, Arguments: args}}})
}
