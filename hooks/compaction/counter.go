package compaction

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/cloudwego/eino/schema"

	// Imported under another name: the package's tests declare a helper count.
	tokencount "github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// TokenCounter measures a conversation (and the tool schemas sent with it) in
// tokens. Implementations must be safe for concurrent use and must not mutate
// their arguments. Count of no messages and no tools is 0.
type TokenCounter interface {
	Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)
}

// TokenCounterFunc adapts an ordinary function to TokenCounter.
type TokenCounterFunc func(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)

// Count calls f.
func (f TokenCounterFunc) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	return f(ctx, messages, tools)
}

// Cost is one message's share of a conversation's size, on an
// AdditiveCounter's own scale. Costs add up; AdditiveCounter.Tokens turns a
// sum into tokens. Units is the length of the message in code points (its
// rendering plus the reasoning its client sends, ReasoningSent), Flat the
// flat token charge for its attachments; Add and Sub add and subtract two
// costs.
type Cost = tokencount.Cost

// AdditiveCounter is a TokenCounter whose count of any list of messages can be
// computed exactly from per-message costs. Planners use it to count every
// candidate remainder in O(1) after one O(n) pass, instead of recounting the
// conversation for every candidate. For all messages ms,
//
//	Tokens(sum of MessageCost(m) for m in ms, len(ms)) == Count(ctx, ms, nil)
type AdditiveCounter interface {
	TokenCounter
	// MessageCost measures one message.
	MessageCost(msg *schema.Message) Cost
	// Tokens converts the summed cost of n messages into tokens.
	Tokens(sum Cost, n int) int
}

// NoCharge, as ApproximateConfig.TokensPerImage or TokensPerFile (and the
// same fields of the tiktoken counter's config), charges nothing for that
// kind of attachment. It exists because a zero there means "the default":
// a model that is never sent the attachments, or whose provider does not
// bill them, needs a way to say zero. The fx configuration spells zero 0,
// since its defaults are filled in before a file is read, and accepts -1 too.
const NoCharge = -1

// The bounds of the counter settings. Outside them a count stops meaning
// anything: a CharsPerToken of 1e-300 makes every text worth more tokens
// than an int holds, one of 1e300 makes every text worth none, and either
// way compaction never triggers. Inside them every count of a conversation
// a process can hold fits an int.
const (
	// MinCharsPerToken is the smallest ApproximateConfig.CharsPerToken: ten
	// tokens per code point, well below any tokenizer's worst case.
	MinCharsPerToken = 0.1
	// MaxCharsPerToken is the largest ApproximateConfig.CharsPerToken, far
	// above any tokenizer's average (about 4 for English).
	MaxCharsPerToken = 100.0
	// MaxAttachmentCharge is the largest flat charge per attachment
	// (TokensPerImage, TokensPerFile, here and in the tiktoken counter):
	// ten million tokens, above any model's context window.
	MaxAttachmentCharge = 10_000_000
)

// ApproximateConfig configures an ApproximateTokenCounter. Zero values take
// the defaults.
type ApproximateConfig struct {
	// CharsPerToken is how many code points make one token. Default 4.0,
	// a fair average for English and code; when set it must lie in
	// [MinCharsPerToken, MaxCharsPerToken].
	CharsPerToken float64
	// TokensPerImage is charged per image. Default 85 (a low-detail image on
	// OpenAI models); NoCharge charges nothing; no other negative value and
	// nothing above MaxAttachmentCharge is accepted.
	TokensPerImage int
	// TokensPerFile is charged per file, audio or video part. Default 1000;
	// NoCharge charges nothing; no other negative value and nothing above
	// MaxAttachmentCharge is accepted.
	TokensPerFile int
	// CacheEntries bounds how many messages the counter remembers the cost
	// of (see below). Default 65,536; must not be negative.
	CacheEntries int
	// DisableCache makes the counter measure every message on every count.
	// By default it remembers each message's cost by the message's identity
	// (weakly: the cache keeps no message alive), so that recounting a
	// conversation costs a check per message already seen. That relies on
	// messages not being edited once counted (Eino's contract): only a new
	// value set in Role or Content is noticed; any other edit keeps the old
	// cost. A caller that edits messages after counting them needs
	// DisableCache.
	DisableCache bool
}

// ApproximateTokenCounter estimates tokens as the code points of the
// conversation's rendering (see Render) and of the reasoning sent with it
// (see ReasoningSent) divided by CharsPerToken, truncated,
// plus a flat charge per attachment, including attachments inside tool
// results. Tool schemas are counted through RenderTools. It needs no
// tokenizer, is safe for concurrent use, and is an AdditiveCounter. The zero
// value (and a nil pointer) counts with the default settings.
type ApproximateTokenCounter struct {
	a *tokencount.Approx // nil in the zero value: the defaults
}

var _ AdditiveCounter = (*ApproximateTokenCounter)(nil)

// NewApproximateTokenCounter returns a counter with cfg's settings; a nil cfg
// means all defaults.
func NewApproximateTokenCounter(cfg *ApproximateConfig) (*ApproximateTokenCounter, error) {
	if cfg == nil {
		return &ApproximateTokenCounter{a: tokencount.NewApprox(tokencount.Settings{})}, nil
	}
	switch {
	case cfg.CharsPerToken != 0 && !(cfg.CharsPerToken >= MinCharsPerToken && cfg.CharsPerToken <= MaxCharsPerToken):
		return nil, fmt.Errorf("compaction: ApproximateConfig.CharsPerToken must be 0 (the default, 4) or in [%v, %v], got %v",
			MinCharsPerToken, MaxCharsPerToken, cfg.CharsPerToken)
	case cfg.TokensPerImage < 0 && cfg.TokensPerImage != NoCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerImage must be at least 0 (or NoCharge), got %d", cfg.TokensPerImage)
	case cfg.TokensPerImage > MaxAttachmentCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerImage must be at most %d (MaxAttachmentCharge), got %d", MaxAttachmentCharge, cfg.TokensPerImage)
	case cfg.TokensPerFile < 0 && cfg.TokensPerFile != NoCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerFile must be at least 0 (or NoCharge), got %d", cfg.TokensPerFile)
	case cfg.TokensPerFile > MaxAttachmentCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerFile must be at most %d (MaxAttachmentCharge), got %d", MaxAttachmentCharge, cfg.TokensPerFile)
	case cfg.CacheEntries < 0:
		return nil, fmt.Errorf("compaction: ApproximateConfig.CacheEntries must be at least 0, got %d", cfg.CacheEntries)
	}
	return &ApproximateTokenCounter{a: tokencount.NewApprox(tokencount.Settings(*cfg))}, nil
}

// DefaultCounter returns an ApproximateTokenCounter with the default settings.
func DefaultCounter() *ApproximateTokenCounter {
	c, _ := NewApproximateTokenCounter(nil)
	return c
}

// approx is the counter inside c: nil (the defaults) for a nil or zero c.
func (c *ApproximateTokenCounter) approx() *tokencount.Approx {
	if c == nil {
		return nil
	}
	return c.a
}

// Count implements TokenCounter. It never fails; ctx is not consulted because
// counting is pure computation.
func (c *ApproximateTokenCounter) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	return c.approx().Count(ctx, messages, tools)
}

// MessageCost implements AdditiveCounter.
func (c *ApproximateTokenCounter) MessageCost(msg *schema.Message) Cost {
	return c.approx().MessageCost(msg)
}

// messageCosts is MessageCost of each message, read from the cache where
// the conversation was counted before (the planner asks for it).
func (c *ApproximateTokenCounter) messageCosts(messages []*schema.Message) []Cost {
	return c.approx().Costs(messages)
}

// Tokens implements AdditiveCounter: the separators between n messages are
// added here, which is why costs are additive.
func (c *ApproximateTokenCounter) Tokens(sum Cost, n int) int { return c.approx().Tokens(sum, n) }

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
// Attachment can leak them. Its fields:
//
//	Kind     AttachmentKind // image, audio, video or file
//	MIMEType string         // "" when the part does not say
//	Name     string         // file name, files only
//	URL      string         // an http or https URL, else ""
//	Extra    map[string]any // the part's metadata, as stored
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
