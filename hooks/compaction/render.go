package compaction

import (
	"maps"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
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
	// internal/render), so content cannot start a line that looks like a
	// message of its own. Nil writes text as it is.
	Text func(string) string
}

// options is o as the renderer takes it.
func (o RenderOptions) options() render.Options {
	return render.Options{ToolCallIDs: o.ToolCallIDs, Attachment: o.Attachment, Text: o.Text}
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
	render.Write(&b, messages, opts.options())
	return b.String()
}

// RenderMessage renders one message as Render would.
func RenderMessage(msg *schema.Message, opts RenderOptions) string {
	var b strings.Builder
	render.Message(&b, msg, opts.options())
	return b.String()
}

// RenderTools renders tool schemas as a stable JSON array of objects with the
// keys "description", "name" and "parameters" (the JSON Schema of the
// arguments, omitted when the tool takes none). Keys are sorted at every level
// and separators are ", " and ": ", so equal schemas always render alike. It
// returns "" for no tools.
func RenderTools(tools []*schema.ToolInfo) string { return render.Tools(tools) }

// AttachmentKind is the kind of a non-text message part.
type AttachmentKind = render.Kind

// The attachment kinds a rendering knows about.
const (
	AttachmentImage AttachmentKind = "image"
	AttachmentAudio AttachmentKind = "audio"
	AttachmentVideo AttachmentKind = "video"
	AttachmentFile  AttachmentKind = "file"
)

// Attachment describes a non-text message part without its data. Base64
// payloads and data: URLs are never copied into it, so nothing rendered from an
// Attachment can leak them.
type Attachment = render.Attachment

// DescribeAttachment is the placeholder the summarizer sees:
// "<image: MIME[, k=v...]>" and "<file: NAME, MIME[, k=v...]>" (likewise audio
// and video). MIME is "unknown type" when absent, NAME "unnamed". The pairs are
// the part's scalar metadata sorted by key (strings as is, booleans true/false,
// numbers in their shortest form; nested values are left out) plus url=URL for
// an http(s) URL. Values that look like inline data are never shown, and
// line breaks anywhere become blanks, so the placeholder is one line.
func DescribeAttachment(a Attachment) string { return render.Describe(a) }

// Attachments lists the attachments of msg in order, without their data.
// Each Extra is a copy, so the caller may change it without touching msg.
func Attachments(msg *schema.Message) []Attachment {
	if msg == nil {
		return nil
	}
	var out []Attachment
	for p := range render.Parts(msg) {
		if !p.IsText {
			a := p.Attachment
			a.Extra = maps.Clone(a.Extra)
			out = append(out, a)
		}
	}
	return out
}

// DefaultSummaryInstruction is the system prompt the summarizer gets when
// SummarizationConfig.SummaryInstruction is empty. It asks for five fixed
// Markdown sections so that successive summaries stay comparable and can be
// folded into each other.
const DefaultSummaryInstruction = transcript.Instruction

// Transcript renders messages[indices] as the summarizer reads them, one
// after another separated by "\n": earlier summaries as
// "[conversation_summary]\n" and their text without the summary tags, every
// other message as RenderMessage with tool-call ids and DescribeAttachment
// placeholders. When the indices span the current request (the last real
// user message) without holding it, as a round over history and the task's
// first steps does, a "[current_request]" line stands where the request is, so
// the summarizer can tell earlier turns from work already done for the
// request. Any text that looks like a <conversation_to_summarize> tag is
// escaped ("&lt;...&gt;"), so the transcript cannot break out of its block,
// and content imitating a "[conversation_summary]" or "[current_request]"
// header is shown with parentheses instead of brackets.
//
// A SummarizationCompactor whose identifier ledger is on also leaves a
// folded summary's ledger block out, since the ledger carries those values
// into the next summary itself; Transcript shows the block.
func Transcript(messages []*schema.Message, indices []int) string {
	wrapped, _ := transcript.Wrapped(messages, indices, transcript.View{Request: transcript.Spanned(messages, indices)})
	return transcript.Body(wrapped)
}
