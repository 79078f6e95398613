package openaitest

import (
	"fmt"
	"slices"
	"strings"
)

// CheckToolPairing reports, as an error, the first way messages breaks the
// pairing rule real providers enforce: every tool message answers a call of
// the assistant message it follows (possibly after sibling tool messages), and
// every call of an assistant message is answered before the next non-tool
// message or the end of the conversation. It returns nil for a valid
// conversation. The server runs it on every request; tests may call it
// directly on what they send.
func CheckToolPairing(messages []Message) error {
	var pending []string // calls of the latest assistant message still unanswered
	pendingAt := -1
	for i, m := range messages {
		if m.Role == "tool" {
			j := slices.Index(pending, m.ToolCallID)
			if j < 0 {
				return fmt.Errorf("messages[%d]: tool message with tool_call_id %q must be a response to a preceding message with 'tool_calls'", i, m.ToolCallID)
			}
			pending = slices.Delete(pending, j, j+1)
			continue
		}
		if len(pending) > 0 {
			return fmt.Errorf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; messages[%d] is missing %s", i, pendingAt, strings.Join(pending, ", "))
		}
		pending, pendingAt = nil, -1
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			for _, tc := range m.ToolCalls {
				pending = append(pending, tc.ID)
			}
			pendingAt = i
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %s at the end of the conversation", pendingAt, strings.Join(pending, ", "))
	}
	return nil
}
