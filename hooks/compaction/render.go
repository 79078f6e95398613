package compaction

import (
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// RenderOptions controls Render. The zero value is the counters' rendering:
// no tool-call ids, short attachment placeholders.
type RenderOptions struct {
	// ToolCallIDs adds " id=ID" to tool calls and tool results. The summary
	// transcript wants them (they are identifiers the agent may need); counters
	// do not.
	ToolCallIDs bool
	// Attachment renders a non-text part as the text that stands for it
	// (DescribeAttachment is the summarizer's). The attachment's Extra may
	// be the message's own map: read it, never write it, since the caller's
	// messages must stay as they are. Nil means the short placeholder the
	// counters use: "<image>", "<audio>", "<video>", "<file: NAME>".
	Attachment func(Attachment) string
	// Text, when set, rewrites every piece of text that comes from the
	// conversation (message texts, tool results, tool names, call ids and
	// arguments) before it is written; role labels and placeholders are not
	// passed through it. A text part after a message's first reaches it
	// with the "\n" that separates it. The transcript's rendering indents
	// the continuation lines that begin like a transcript line (see
	// lookalike.go), so content cannot start a line that looks like a
	// message of its own. Nil writes text as it is.
	Text func(string) string

	// indent, with Text nil, writes text as indentContinuation would
	// rewrite it, straight into the sink: the transcript's rendering then
	// needs no copy of each text with a line break.
	indent bool
	// cut, with indent, cuts each text before it is indented
	// (fitTranscript); nil cuts nothing.
	cut *textCutter
}

// writeText writes a text that comes from the conversation, through Text.
func (o RenderOptions) writeText(w textSink, s string) {
	o.writeShown(w, o.cutFor(s))
}

// writeShown writes a text already cut (cutFor) as writeText would.
func (o RenderOptions) writeShown(w textSink, s string) {
	switch {
	case o.Text != nil:
		w.WriteString(o.Text(s))
	case o.indent:
		writeIndented(w, s)
	default:
		w.WriteString(s)
	}
}

// transcript reports whether the options render a summarizer's transcript,
// where content must not pose as transcript structure (lookalike.go), as
// opposed to the counters' rendering.
func (o RenderOptions) transcript() bool { return o.indent || o.Text != nil }

// cutFor is s as the transcript shows it: cut when the options cut texts.
func (o RenderOptions) cutFor(s string) string {
	if o.indent && o.cut != nil {
		return o.cut.text(s)
	}
	return s
}

// writeLaterPart writes a message's later text part as indentContinuation
// would write "\n"+s: the part starts a line of its own.
func writeLaterPart(w textSink, s string) {
	w.WriteString("\n")
	writeAtLineStart(w, s)
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

// runeLen counts the code points of s as utf8.RuneCountInString does: each
// invalid byte is one, as it reaches the provider (JSON encoding writes
// U+FFFD for it). On valid UTF-8 it counts the bytes that do not continue a
// sequence (10xxxxxx), eight at a time, because this is the counters' hot
// loop: counting rune by rune ran below 0.5 GB/s on mixed text. Only a text
// with non-ASCII bytes is checked for validity, and only an invalid one is
// counted rune by rune: counting continuation bytes alone measured 100,000
// stray ones as no code point at all, so a binary tool result looked empty.
// It is additive over concatenation at ASCII bytes (where messages are
// joined), which the per-message costs of AdditiveCounter rely on. A tool
// message joins its texts with no separator, so there invalid bytes of two
// texts can make one code point of the rendering; a runeTally counts each
// text on its own, as the provider receives it (a JSON string each), not
// the joined rendering.
func runeLen(s string) int {
	n, _ := runeCount(s)
	return n
}

// runeCount is runeLen(s) and whether s is valid UTF-8, which it learns on
// the way: a caller that needs both (cutting a long text) reads s once for
// them instead of twice.
func runeCount(s string) (int, bool) {
	cont := 0
	var high uint64
	i := 0
	for ; i+16 <= len(s); i += 16 {
		a, b := word64(s, i), word64(s, i+8)
		if (a|b)&highBits == 0 {
			continue
		}
		high = 1
		cont += continuationBytes(a) + continuationBytes(b)
	}
	for ; i+8 <= len(s); i += 8 {
		w := word64(s, i)
		high |= w & highBits
		cont += continuationBytes(w)
	}
	for ; i < len(s); i++ {
		high |= uint64(s[i] & 0x80)
		if s[i]&0xC0 == 0x80 {
			cont++
		}
	}
	if high != 0 && !utf8.ValidString(s) {
		return utf8.RuneCountInString(s), false
	}
	return len(s) - cont, true
}

const highBits = 0x8080808080808080

// word64 loads s[i:i+8] little-endian; the compiler turns it into one load.
func word64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// continuationBytes counts the bytes of w whose top bits are 10: bit 7 set
// and bit 6 (moved up to bit 7 by the shift) clear.
func continuationBytes(w uint64) int {
	return bits.OnesCount64(w & highBits &^ (w << 1))
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
		placeholder = shortAttachment
	}
	role := string(m.Role)
	if role == "" {
		role = "unknown"
	}
	if opts.transcript() {
		role = oneLine(role) // the application's text: it must not break the header's line
	}
	if m.Role == schema.Tool {
		w.WriteString("[tool:")
		opts.writeText(w, orDefault(m.ToolName, "unknown"))
		if opts.ToolCallIDs && m.ToolCallID != "" {
			w.WriteString(" id=")
			opts.writeText(w, m.ToolCallID)
		}
		w.WriteString("] ")
		// A result's parts are joined with no separator, so a part that
		// ends a line leaves the next one at the start of a line: there a
		// transcript indents a part that begins like a transcript line as
		// it would the same line inside one text.
		lineStart := false
		for p := range contentParts(m) {
			if !p.isText {
				w.WriteString(placeholder(p.attachment))
				lineStart = false
				continue
			}
			text := opts.cutFor(p.text)
			if opts.transcript() {
				if endsMidRune(text) {
					// Joined with the next part, its last bytes could
					// complete a line separator no check saw; the
					// provider would get each invalid byte as U+FFFD.
					text = validUTF8(text)
				}
				if lineStart && startsLikeEntry(text) {
					w.WriteString(continuationIndent)
				}
				// An empty part, or one of invisible characters alone,
				// leaves the line where it was: after one that ended a
				// line, the next part still starts one as a model reads it.
				lineStart = leavesLineStart(text, lineStart)
			}
			opts.writeShown(w, text)
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
		switch {
		case texts == 0:
			line()
			w.WriteString("] ")
			opts.writeText(w, p.text)
		case opts.Text != nil:
			// A later part starts a line of its own: Text must see that
			// line break, or the part escapes what it does to continuation
			// lines (the transcript's indent).
			w.WriteString(opts.Text("\n" + p.text))
		case opts.indent:
			writeLaterPart(w, opts.cutFor(p.text))
		default:
			w.WriteString("\n")
			w.WriteString(p.text)
		}
		texts++
	}
	for _, tc := range m.ToolCalls {
		line()
		w.WriteString(" -> tool_call")
		if opts.ToolCallIDs && tc.ID != "" {
			w.WriteString(" id=")
			opts.writeText(w, tc.ID)
		}
		w.WriteString("] ")
		opts.writeText(w, tc.Function.Name)
		w.WriteString("(")
		args := strings.TrimSpace(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		opts.writeText(w, args)
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
				if v, err := digest.Generic(js); err == nil {
					obj["parameters"] = v
				}
			}
		}
		list = append(list, obj)
	}
	return digest.StableJSON(list)
}
