// Package render writes messages as the one plain text every size is
// measured on and the summarizer reads: roles, tool calls, attachment
// placeholders, content lines that look like a transcript line indented,
// and texts cut to a length.
//
// This file is the package's door: it alone receives a message, its parts
// and its attachments; text.go works on the strings it hands over (code
// point counts, the indent of look-alike lines, the cut). It uses
// internal/message and internal/digest; compaction.Render, RenderMessage,
// RenderTools, Attachments and DescribeAttachment call it.
package render

import (
	"encoding/json"
	"io"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// Options controls a rendering. The zero value is the counters' rendering:
// no tool-call ids, short attachment placeholders.
type Options struct {
	// ToolCallIDs adds " id=ID" to tool calls and tool results. The summary
	// transcript wants them (they are identifiers the agent may need); counters
	// do not.
	ToolCallIDs bool
	// Attachment renders a non-text part as the text that stands for it
	// (Describe is the summarizer's). The attachment's Extra may be the
	// message's own map: read it, never write it, since the caller's
	// messages must stay as they are. Nil means the short placeholder the
	// counters use: "<image>", "<audio>", "<video>", "<file: NAME>".
	Attachment func(Attachment) string
	// Text, when set, rewrites every piece of text that comes from the
	// conversation (message texts, tool results, tool names, call ids and
	// arguments) before it is written; role labels and placeholders are not
	// passed through it. A text part after a message's first reaches it
	// with the "\n" that separates it. Nil writes text as it is.
	Text func(string) string
	// Indent, with Text nil, writes text as Indent rewrites a text that
	// continues a line, straight into the writer: the transcript's
	// rendering then needs no copy of each text with a line break.
	Indent bool
	// Cut, with Indent, cuts each text before it is indented, and each
	// attachment placeholder (kept on one line, since the cut's marker
	// breaks lines); nil cuts nothing.
	Cut *Cutter
}

// writeText writes a text that comes from the conversation, through Text.
func (o Options) writeText(w io.StringWriter, s string) {
	o.writeShown(w, o.cutFor(s))
}

// writeShown writes a text already cut (cutFor) as writeText would.
func (o Options) writeShown(w io.StringWriter, s string) {
	switch {
	case o.Text != nil:
		w.WriteString(o.Text(s))
	case o.Indent:
		writeIndented(w, s)
	default:
		w.WriteString(s)
	}
}

// transcript reports whether the options render a summarizer's transcript,
// where content must not pose as transcript structure (text.go), as
// opposed to the counters' rendering.
func (o Options) transcript() bool { return o.Indent || o.Text != nil }

// cutFor is s as the transcript shows it: cut when the options cut texts.
func (o Options) cutFor(s string) string {
	if o.Indent && o.Cut != nil {
		return o.Cut.Text(s)
	}
	return s
}

// writePlaceholder writes the text that stands for attachment a.
func (o Options) writePlaceholder(w io.StringWriter, a Attachment) {
	var s string
	if o.Attachment != nil {
		s = o.Attachment(a)
	} else {
		s = short(a)
	}
	if o.Indent && o.Cut != nil {
		s = oneLine(o.Cut.Text(s))
	}
	w.WriteString(s)
}

// writeLater writes a message's text part after its first, which starts a
// line of its own.
func (o Options) writeLater(w io.StringWriter, s string) {
	switch {
	case o.Text != nil:
		// Text must see the line break, or the part escapes what it does
		// to continuation lines (the transcript's indent).
		w.WriteString(o.Text("\n" + s))
	case o.Indent:
		w.WriteString("\n")
		Indent(w, o.cutFor(s), true)
	default:
		w.WriteString("\n")
		w.WriteString(s)
	}
}

// Write writes a conversation as plain text, one line or more per message,
// messages separated by "\n" (see compaction.Render for the format). It is
// what counters measure and what the summarizer reads.
func Write(w io.StringWriter, messages []*schema.Message, opts Options) {
	for i, m := range messages {
		if i > 0 {
			w.WriteString("\n")
		}
		Message(w, m, opts)
	}
}

// Message writes one message as Write does. A tool message is one line
// (writeToolResult); any other message has a line for its texts, one per
// tool call and one per attachment, or "<no content>".
func Message(w io.StringWriter, m *schema.Message, opts Options) {
	if m == nil {
		w.WriteString("[unknown] <no content>")
		return
	}
	if m.Role == schema.Tool {
		writeToolResult(w, m, opts)
		return
	}
	role := string(m.Role)
	if role == "" {
		role = "unknown"
	}
	if opts.transcript() {
		role = oneLine(role) // the application's text: it must not break the header's line
	}
	l := lines{w: w, role: role}
	writeTexts(&l, m, opts)
	writeCalls(&l, m.ToolCalls, opts)
	writeAttachments(&l, m, opts)
	if l.n == 0 {
		l.start()
		w.WriteString("] <no content>")
	}
}

// lines starts the lines of a message that is not a tool result, each
// "[ROLE" and what its writer adds.
type lines struct {
	w    io.StringWriter
	role string
	n    int
}

func (l *lines) start() {
	if l.n > 0 {
		l.w.WriteString("\n")
	}
	l.n++
	l.w.WriteString("[")
	l.w.WriteString(l.role)
}

// writeToolResult writes "[tool:NAME id=ID] RESULT", RESULT the message's
// texts and placeholders joined with no separator.
func writeToolResult(w io.StringWriter, m *schema.Message, opts Options) {
	w.WriteString("[tool:")
	opts.writeText(w, orDefault(m.ToolName, "unknown"))
	if opts.ToolCallIDs && m.ToolCallID != "" {
		w.WriteString(" id=")
		opts.writeText(w, m.ToolCallID)
	}
	w.WriteString("] ")
	// A result's parts are joined with no separator, so a part that ends a
	// line leaves the next one at the start of a line: there a transcript
	// indents a part that begins like a transcript line as it would the
	// same line inside one text.
	lineStart := false
	for p := range Parts(m) {
		if !p.IsText {
			opts.writePlaceholder(w, p.Attachment)
			lineStart = false
			continue
		}
		lineStart = opts.writeJoined(w, opts.cutFor(p.Text), lineStart)
	}
}

// writeJoined writes a tool result's text part, already cut, after what
// left the line at its start or not (lineStart), and reports whether what
// follows it starts a line.
func (o Options) writeJoined(w io.StringWriter, text string, lineStart bool) bool {
	if o.transcript() {
		if endsMidRune(text) {
			// Joined with the next part, its last bytes could complete a
			// line separator no check saw; the provider would get each
			// invalid byte as U+FFFD.
			text = ValidUTF8(text)
		}
		if lineStart && startsLikeEntry(text) {
			w.WriteString(continuationIndent)
		}
		// An empty part, or one of invisible characters alone, leaves the
		// line where it was: after one that ended a line, the next part
		// still starts one as a model reads it.
		lineStart = leavesLineStart(text, lineStart)
	}
	o.writeShown(w, text)
	return lineStart
}

// writeTexts writes "[ROLE] " and the message's texts joined by "\n", if
// it has any text.
func writeTexts(l *lines, m *schema.Message, opts Options) {
	first := true
	for p := range Parts(m) {
		if !p.IsText {
			continue
		}
		if first {
			l.start()
			l.w.WriteString("] ")
			opts.writeText(l.w, p.Text)
			first = false
			continue
		}
		opts.writeLater(l.w, p.Text)
	}
}

// writeCalls writes a line "[ROLE -> tool_call] NAME(ARGS)" per tool call,
// ARGS the call's JSON arguments as stored, trimmed, "{}" when empty.
func writeCalls(l *lines, calls []schema.ToolCall, opts Options) {
	for _, tc := range calls {
		l.start()
		l.w.WriteString(" -> tool_call")
		if opts.ToolCallIDs && tc.ID != "" {
			l.w.WriteString(" id=")
			opts.writeText(l.w, tc.ID)
		}
		l.w.WriteString("] ")
		opts.writeText(l.w, tc.Function.Name)
		l.w.WriteString("(")
		args := strings.TrimSpace(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		opts.writeText(l.w, args)
		l.w.WriteString(")")
	}
}

// writeAttachments writes a line "[ROLE] PLACEHOLDER" per attachment.
func writeAttachments(l *lines, m *schema.Message, opts Options) {
	for p := range Parts(m) {
		if p.IsText {
			continue
		}
		l.start()
		l.w.WriteString("] ")
		opts.writePlaceholder(l.w, p.Attachment)
	}
}

// Kind is the kind of a non-text message part.
type Kind string

// The attachment kinds a rendering knows about.
const (
	kindImage Kind = "image"
	kindAudio Kind = "audio"
	kindVideo Kind = "video"
	kindFile  Kind = "file"
)

// Attachment describes a non-text message part without its data. Base64
// payloads and data: URLs are never copied into it, so nothing rendered from an
// Attachment can leak them.
type Attachment struct {
	Kind     Kind
	MIMEType string         // "" when the part does not say
	Name     string         // file name, files only
	URL      string         // an http or https URL, else ""
	Extra    map[string]any // the part's metadata, as stored
}

// short is the placeholder counters use: "<image>", "<audio>", "<video>",
// "<file: NAME>" ("unnamed" when the file has no name). It is short because
// a counter charges attachments a flat price of their own.
func short(a Attachment) string {
	if a.Kind == kindFile {
		return "<file: " + orDefault(a.Name, "unnamed") + ">"
	}
	return "<" + string(a.Kind) + ">"
}

// Describe is the placeholder the summarizer sees:
// "<image: MIME[, k=v...]>" and "<file: NAME, MIME[, k=v...]>" (likewise audio
// and video). MIME is "unknown type" when absent, NAME "unnamed". The pairs are
// the part's scalar metadata sorted by key (strings as is, booleans true/false,
// numbers in their shortest form; nested values are left out) plus url=URL for
// an http(s) URL. Values that look like inline data are never shown, and
// line breaks anywhere become blanks, so the placeholder is one line.
func Describe(a Attachment) string {
	var b strings.Builder
	b.WriteString("<")
	b.WriteString(string(a.Kind))
	b.WriteString(": ")
	if a.Kind == kindFile {
		b.WriteString(orDefault(a.Name, "unnamed"))
		b.WriteString(", ")
	}
	b.WriteString(orDefault(a.MIMEType, "unknown type"))
	pairs := scalarPairs(a.Extra)
	if a.URL != "" {
		if _, taken := pairs["url"]; !taken {
			pairs["url"] = a.URL
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pairs)) {
		b.WriteString(", ")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(pairs[k])
	}
	b.WriteString(">")
	return oneLine(b.String())
}

// scalarPairs keeps the printable scalar values of extra.
func scalarPairs(extra map[string]any) map[string]string {
	out := make(map[string]string, len(extra)+1)
	for k, v := range extra {
		if s, ok := scalarString(v); ok && !looksLikeInlineData(s) {
			out[k] = s
		}
	}
	return out
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return strconv.FormatInt(message.Int64(x), 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

func commonAttachment(kind Kind, c schema.MessagePartCommon, partExtra map[string]any) Attachment {
	extra := c.Extra
	if len(partExtra) > 0 {
		extra = make(map[string]any, len(c.Extra)+len(partExtra))
		maps.Copy(extra, c.Extra)
		maps.Copy(extra, partExtra)
	}
	return Attachment{Kind: kind, MIMEType: c.MIMEType, URL: httpURL(c.URL), Extra: extra}
}

// Part is one piece of a message's content in order: text or an
// attachment. The attachment's Extra may be the message's own map: read
// it, never write it.
type Part struct {
	Text       string
	IsText     bool
	Attachment Attachment
}

// Parts yields the content of msg in order: Content first (when not
// empty), then the parts of UserInputMultiContent, AssistantGenMultiContent
// and the deprecated MultiContent. Reasoning is skipped: it is the model's
// scratch work, not conversation. A nil msg yields nothing, since
// conversations may hold nil entries and every caller would otherwise have to
// remember them.
func Parts(msg *schema.Message) iter.Seq[Part] {
	return func(yield func(Part) bool) {
		if msg == nil {
			return
		}
		if msg.Content != "" && !yield(Part{Text: msg.Content, IsText: true}) {
			return
		}
		for _, p := range msg.UserInputMultiContent {
			pp, ok := inputPart(p)
			if ok && !yield(pp) {
				return
			}
		}
		for _, p := range msg.AssistantGenMultiContent {
			pp, ok := outputPart(p)
			if ok && !yield(pp) {
				return
			}
		}
		for _, p := range msg.MultiContent {
			pp, ok := legacyPart(p)
			if ok && !yield(pp) {
				return
			}
		}
	}
}

func inputPart(p schema.MessageInputPart) (Part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return Part{Text: p.Text, IsText: true}, true
	case p.Image != nil:
		return Part{Attachment: commonAttachment(kindImage, p.Image.MessagePartCommon, p.Extra)}, true
	case p.Audio != nil:
		return Part{Attachment: commonAttachment(kindAudio, p.Audio.MessagePartCommon, p.Extra)}, true
	case p.Video != nil:
		return Part{Attachment: commonAttachment(kindVideo, p.Video.MessagePartCommon, p.Extra)}, true
	case p.File != nil:
		a := commonAttachment(kindFile, p.File.MessagePartCommon, p.Extra)
		a.Name = p.File.Name
		return Part{Attachment: a}, true
	case p.Text != "":
		return Part{Text: p.Text, IsText: true}, true
	}
	return Part{}, false
}

func outputPart(p schema.MessageOutputPart) (Part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeReasoning || p.Reasoning != nil:
		return Part{}, false
	case p.Type == schema.ChatMessagePartTypeText:
		return Part{Text: p.Text, IsText: true}, true
	case p.Image != nil:
		return Part{Attachment: commonAttachment(kindImage, p.Image.MessagePartCommon, p.Extra)}, true
	case p.Audio != nil:
		return Part{Attachment: commonAttachment(kindAudio, p.Audio.MessagePartCommon, p.Extra)}, true
	case p.Video != nil:
		return Part{Attachment: commonAttachment(kindVideo, p.Video.MessagePartCommon, p.Extra)}, true
	case p.Text != "":
		return Part{Text: p.Text, IsText: true}, true
	}
	return Part{}, false
}

func legacyPart(p schema.ChatMessagePart) (Part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return Part{Text: p.Text, IsText: true}, true
	case p.ImageURL != nil:
		u := p.ImageURL.URL
		return Part{Attachment: Attachment{Kind: kindImage, MIMEType: p.ImageURL.MIMEType, URL: httpURL(&u), Extra: p.ImageURL.Extra}}, true
	case p.AudioURL != nil:
		u := p.AudioURL.URL
		return Part{Attachment: Attachment{Kind: kindAudio, MIMEType: p.AudioURL.MIMEType, URL: httpURL(&u), Extra: p.AudioURL.Extra}}, true
	case p.VideoURL != nil:
		u := p.VideoURL.URL
		return Part{Attachment: Attachment{Kind: kindVideo, MIMEType: p.VideoURL.MIMEType, URL: httpURL(&u), Extra: p.VideoURL.Extra}}, true
	case p.FileURL != nil:
		u := p.FileURL.URL
		return Part{Attachment: Attachment{Kind: kindFile, MIMEType: p.FileURL.MIMEType, Name: p.FileURL.Name, URL: httpURL(&u), Extra: p.FileURL.Extra}}, true
	case p.Text != "":
		return Part{Text: p.Text, IsText: true}, true
	}
	return Part{}, false
}
