package compaction

import "github.com/cloudwego/eino/schema"

// LastAssistantIndex returns the index of the last assistant message, or -1.
func LastAssistantIndex(messages []*schema.Message) int {
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
	return msg != nil && msg.Role == schema.User && !HasMarkerKey(msg)
}

// IsToolResult reports whether msg carries a tool call's result.
func IsToolResult(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.Tool
}
