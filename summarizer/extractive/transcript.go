package extractive

import (
	"strings"

	"github.com/cloudwego/eino/schema"
)

const (
	openTag  = "<conversation_to_summarize>"
	closeTag = "</conversation_to_summarize>"
)

// promptText joins the text of every user message: the compactor sends one,
// but a caller assembling its own prompt may split it. System messages hold
// the instruction, which this summarizer does not need.
func promptText(input []*schema.Message) string {
	var parts []string
	for _, m := range input {
		if m != nil && m.Role == schema.User {
			if t := messageText(m); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// messageText is Content, else the text parts of the multi-content fields.
func messageText(m *schema.Message) string {
	if m.Content != "" {
		return m.Content
	}
	var parts []string
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	for _, p := range m.MultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// transcript cuts the text between the first opening tag and the last
// closing tag, so a closing tag quoted inside the conversation cannot end it
// early. A missing tag means the start (or end) of the text.
func transcript(text string) string {
	start := 0
	if i := strings.Index(text, openTag); i >= 0 {
		start = i + len(openTag)
		start += len(prefixNewline(text[start:]))
	}
	end := len(text)
	if i := strings.LastIndex(text, closeTag); i >= start {
		end = i
		if end > start && text[end-1] == '\n' {
			end--
			if end > start && text[end-1] == '\r' {
				end--
			}
		}
	}
	return text[start:end]
}

func prefixNewline(s string) string {
	switch {
	case strings.HasPrefix(s, "\r\n"):
		return "\r\n"
	case strings.HasPrefix(s, "\n"):
		return "\n"
	}
	return ""
}
