package compaction

import "github.com/cloudwego/eino/schema"

// ReasoningSent returns the reasoning text of msg that a chat model client
// sends back to the provider with the message, "" when none is sent. Both
// counters count it (it fills the prompt like any other text) although it is
// never rendered: the summarizer's transcript leaves reasoning out.
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
