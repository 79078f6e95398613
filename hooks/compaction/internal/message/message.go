// Package message reads what a compactor needs of one message: its
// compaction marker (the map a compactor writes under marker.Key in
// schema.Message.Extra) and its role in the conversation (a real user's
// message, a tool result, the last assistant reply, the reasoning a client
// sends back).
//
// It is the lowest layer under hooks/compaction and uses no other package of
// it; the public names of hooks/compaction (MarkerFields, IsRealUser,
// ReasoningSent, ...) call it.
package message

import "github.com/cloudwego/eino/schema"

// The marker strategies of the three compactors. Marker strategies name what
// was done; the fx configuration and the einocompact command name what to do
// ("summarize", "slide", "prune") and accept these names as other spellings.
const (
	// StrategySummarization marks SummarizationCompactor's summaries.
	StrategySummarization = "summarization"
	// StrategySlidingWindow marks SlidingWindowCompactor's omission notes.
	StrategySlidingWindow = "sliding_window"
	// StrategyToolResultPruning marks tool results replaced by
	// ToolResultPruningCompactor.
	StrategyToolResultPruning = "tool_result_pruning"
)

// LastAssistant returns the index of the last assistant message, or -1.
func LastAssistant(messages []*schema.Message) int {
	for i := len(messages) - 1; i >= 0; i-- {
		if m := messages[i]; m != nil && m.Role == schema.Assistant {
			return i
		}
	}
	return -1
}

// IsRealUser reports whether msg is a user message the user wrote: user role
// and no compaction marker key.
func IsRealUser(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.User && !HasKey(msg)
}

// IsToolResult reports whether msg carries a tool call's result.
func IsToolResult(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.Tool
}

// ReasoningSent returns the reasoning text of msg that a chat model client
// sends back to the provider with the message, "" when none is sent.
//
// The rule is the eino-ext OpenAI client's (libs/acl/openai v0.1.17, which
// writes ReasoningContent as "reasoning_content"): a message with
// UserInputMultiContent parts is sent without it; otherwise a message with
// AssistantGenMultiContent parts, or with no parts at all, carries it; a
// message with only the deprecated MultiContent parts does not.
func ReasoningSent(msg *schema.Message) string {
	if msg == nil || msg.ReasoningContent == "" || len(msg.UserInputMultiContent) > 0 {
		return ""
	}
	if len(msg.AssistantGenMultiContent) == 0 && len(msg.MultiContent) > 0 {
		return ""
	}
	return msg.ReasoningContent
}
