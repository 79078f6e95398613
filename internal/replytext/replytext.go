// Package replytext holds the one rule for the usable text of a chat model's
// reply, shared by the summarization compactor (which takes its summary from
// it) and summarizer/failover (which falls over to the next model when a
// reply has none), so that whatever the chain accepts the compactor can use;
// and the two faults of a call that only its caller can fix (RefusesMaxTokens,
// CutBeforeText), which the chain hands back to the compactor.
package replytext

import (
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Usable returns the reply's text, trimmed by strings.TrimSpace: Content, or
// when that is blank the non-blank text parts of AssistantGenMultiContent
// (or, when those hold none, of the deprecated MultiContent), each trimmed
// and joined by a newline, so a reply written in several parts loses none of
// them. Reasoning never counts. "" means the reply has no usable text; so
// does a nil reply.
func Usable(reply *schema.Message) string {
	if reply == nil {
		return ""
	}
	if text := strings.TrimSpace(reply.Content); text != "" {
		return text
	}
	if text := joinText(reply.AssistantGenMultiContent, func(p schema.MessageOutputPart) (schema.ChatMessagePartType, string) {
		return p.Type, p.Text
	}); text != "" {
		return text
	}
	return joinText(reply.MultiContent, func(p schema.ChatMessagePart) (schema.ChatMessagePartType, string) {
		return p.Type, p.Text
	})
}

// joinText joins the trimmed, non-blank text parts of parts by "\n".
func joinText[P any](parts []P, text func(P) (schema.ChatMessagePartType, string)) string {
	var texts []string
	for _, p := range parts {
		if typ, t := text(p); typ == schema.ChatMessagePartTypeText {
			if t = strings.TrimSpace(t); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
}
