package compaction

import (
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
)

// RenderOptions controls Render. The zero value is the counters' rendering:
// no tool-call ids, short attachment placeholders.
type RenderOptions struct {
	// ToolCallIDs adds " id=ID" to tool calls and tool results. The summary
	// transcript wants them (they are identifiers the agent may need); counters
	// do not.
	ToolCallIDs bool
	// Attachment renders non-text parts. Nil means ShortAttachment.
	Attachment AttachmentRenderer
}

// Render writes a conversation as plain text, one line or more per message,
// messages separated by "\n". It is what counters measure and what the
// summarizer reads.
//
//   - A tool message is "[tool:NAME] RESULT" ("[tool:NAME id=ID] RESULT" with
//     ToolCallIDs); RESULT joins its text and attachment placeholders with no
//     separator. NAME is "unknown" when the message does not name its tool.
//   - Any other message renders, in order: "[ROLE] " and its texts joined by
//     "\n" (if it has any text); a line "[ROLE -> tool_call] NAME(ARGS)" per
//     tool call, ARGS being the call's JSON arguments as stored, trimmed, "{}"
//     when empty; a line "[ROLE] PLACEHOLDER" per attachment; and
//     "[ROLE] <no content>" when none of these produced a line.
//
// Reasoning content is never rendered, and neither is attachment data.
func Render(messages []*schema.Message, opts RenderOptions) string {
	var b strings.Builder
	renderTo(&b, messages, opts)
	return b.String()
}

// RenderMessage renders one message as Render would.
func RenderMessage(msg *schema.Message, opts RenderOptions) string {
	var b strings.Builder
	renderOne(&b, msg, opts)
	return b.String()
}

// textSink is what rendering writes to: a strings.Builder to produce text, or
// a runeTally to measure it without building it. One code path serves both so
// counts can never drift from the text.
type textSink interface {
	WriteString(s string) (int, error)
}

// runeTally counts the code points written to it.
type runeTally struct{ n int }

func (t *runeTally) WriteString(s string) (int, error) {
	t.n += runeLen(s)
	return len(s), nil
}

// runeLen is utf8.RuneCountInString with an ASCII fast path, since most
// conversations are mostly ASCII and this is the counters' hot loop.
func runeLen(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i + utf8.RuneCountInString(s[i:])
		}
	}
	return len(s)
}

func renderTo(w textSink, messages []*schema.Message, opts RenderOptions) {
	for i, m := range messages {
		if i > 0 {
			w.WriteString("\n")
		}
		renderOne(w, m, opts)
	}
}

func renderOne(w textSink, m *schema.Message, opts RenderOptions) {
	if m == nil {
		w.WriteString("[unknown] <no content>")
		return
	}
	placeholder := opts.Attachment
	if placeholder == nil {
		placeholder = ShortAttachment
	}
	role := string(m.Role)
	if role == "" {
		role = "unknown"
	}
	if m.Role == schema.Tool {
		w.WriteString("[tool:")
		w.WriteString(orDefault(m.ToolName, "unknown"))
		if opts.ToolCallIDs && m.ToolCallID != "" {
			w.WriteString(" id=")
			w.WriteString(m.ToolCallID)
		}
		w.WriteString("] ")
		for p := range contentParts(m) {
			if p.isText {
				w.WriteString(p.text)
			} else {
				w.WriteString(placeholder(p.attachment))
			}
		}
		return
	}

	lines := 0
	line := func() {
		if lines > 0 {
			w.WriteString("\n")
		}
		lines++
		w.WriteString("[")
		w.WriteString(role)
	}
	texts := 0
	for p := range contentParts(m) {
		if !p.isText {
			continue
		}
		if texts == 0 {
			line()
			w.WriteString("] ")
		} else {
			w.WriteString("\n")
		}
		texts++
		w.WriteString(p.text)
	}
	for _, tc := range m.ToolCalls {
		line()
		w.WriteString(" -> tool_call")
		if opts.ToolCallIDs && tc.ID != "" {
			w.WriteString(" id=")
			w.WriteString(tc.ID)
		}
		w.WriteString("] ")
		w.WriteString(tc.Function.Name)
		w.WriteString("(")
		args := strings.TrimSpace(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		w.WriteString(args)
		w.WriteString(")")
	}
	for p := range contentParts(m) {
		if p.isText {
			continue
		}
		line()
		w.WriteString("] ")
		w.WriteString(placeholder(p.attachment))
	}
	if lines == 0 {
		line()
		w.WriteString("] <no content>")
	}
}

// RenderTools renders tool schemas as a stable JSON array of objects with the
// keys "description", "name" and "parameters" (the JSON Schema of the
// arguments, omitted when the tool takes none). Keys are sorted at every level
// and separators are ", " and ": ", so equal schemas always render alike. It
// returns "" for no tools.
func RenderTools(tools []*schema.ToolInfo) string {
	if len(tools) == 0 {
		return ""
	}
	list := make([]any, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		obj := map[string]any{"description": t.Desc, "name": t.Name}
		if t.ParamsOneOf != nil {
			if js, err := t.ParamsOneOf.ToJSONSchema(); err == nil && js != nil {
				if v, err := toGeneric(js); err == nil {
					obj["parameters"] = v
				}
			}
		}
		list = append(list, obj)
	}
	return stableJSON(list)
}
