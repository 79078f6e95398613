// Package notation builds the conversations of the compaction tests, in the
// notation of reference-behaviour.md §0.1: SYS, USER, ASST, CALL, RESULT
// and SUM. Only tests import it; each test package names its helpers after
// these (sys, user, ...) so that a test reads the same in every package.
//
// It imports no package of hooks/compaction, so that the tests of every
// internal package, the lowest included, may use it.
package notation

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/marker"
)

// Sys is a system message.
func Sys(text string) *schema.Message { return schema.SystemMessage(text) }

// User is a user message.
func User(text string) *schema.Message { return schema.UserMessage(text) }

// Asst is an assistant message without tool calls.
func Asst(text string) *schema.Message { return schema.AssistantMessage(text, nil) }

// Call is an assistant message with no text and one call to search({}) per id.
func Call(ids ...string) *schema.Message {
	tcs := make([]schema.ToolCall, 0, len(ids))
	for _, id := range ids {
		tcs = append(tcs, schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: "{}"}})
	}
	return schema.AssistantMessage("", tcs)
}

// Result is the result of call id from the search tool.
func Result(id, text string) *schema.Message {
	return schema.ToolMessage(text, id, schema.WithToolName("search"))
}

// Summary is SUM(text, n): a summary message carrying the summarization
// marker ("summarization", message.StrategySummarization, whose tests
// check that the two agree) over n messages.
func Summary(text string, n int) *schema.Message {
	m := schema.UserMessage("<conversation_summary>\n" + text + "\n</conversation_summary>")
	m.Extra = map[string]any{marker.Key: map[string]any{"strategy": "summarization", "summarized_messages": n}}
	return m
}

// Rep is s repeated n times.
func Rep(s string, n int) string { return strings.Repeat(s, n) }
