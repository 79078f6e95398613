package compaction

import (
	"crypto/sha256"
	"encoding/gob"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/internal/marker"
)

// MetaKey is the schema.Message.Extra key under which a compactor marks the
// messages it wrote. Its value is a map[string]any holding at least "strategy".
// This is the key's one public name (einoint.MetaKey is a deprecated alias).
const MetaKey = marker.Key

// StrategySummarization is the marker strategy of SummarizationCompactor's
// summaries. Marker strategies name what was done; the fx configuration and
// the einocompact command name what to do ("summarize", "slide", "prune")
// and accept these marker names as other spellings.
const StrategySummarization = message.StrategySummarization

// Marker is the decoded compaction marker of a message.
type Marker struct {
	// Strategy names the compactor that wrote the message, e.g. StrategySummarization.
	Strategy string
	// SummarizedMessages is how many messages a summary replaced; 0 for other strategies.
	SummarizedMessages int
}

// MarkerOf reads the compaction marker of msg. It reports false when msg has
// no marker or the marker is malformed (not a map, or without a string
// "strategy"). Counts stored as int, int64, float64 or json.Number (what JSON
// and gob round trips produce) are all accepted. It never panics, whatever
// Extra holds.
func MarkerOf(msg *schema.Message) (Marker, bool) {
	fields, ok := message.Fields(msg)
	if !ok {
		return Marker{}, false
	}
	strategy, ok := fields["strategy"].(string)
	if !ok || strategy == "" {
		return Marker{}, false
	}
	n, _ := message.Int(fields["summarized_messages"])
	return Marker{Strategy: strategy, SummarizedMessages: n}, true
}

// MarkerFields returns a copy of the marker map of msg, for strategies that
// store more than Marker holds. It reports false when msg carries no
// well-formed marker.
func MarkerFields(msg *schema.Message) (map[string]any, bool) { return message.CopyFields(msg) }

// HasMarkerKey reports whether msg carries MetaKey at all, whatever its value.
// Any such message is compactor-made as far as planning goes: it can never be
// the user's current request.
func HasMarkerKey(msg *schema.Message) bool { return message.HasKey(msg) }

// IsStrategy reports whether msg carries a well-formed marker of strategy.
func IsStrategy(msg *schema.Message, strategy string) bool { return message.Is(msg, strategy) }

// NewMarker returns the Extra value for a marker: a fresh map holding
// strategy, summarized_messages when n > 0, and the extra fields given.
func NewMarker(strategy string, n int, fields map[string]any) map[string]any {
	return message.NewFields(strategy, n, fields)
}

// LastAssistantIndex returns the index of the last assistant message, or -1.
func LastAssistantIndex(messages []*schema.Message) int { return message.LastAssistant(messages) }

// IsRealUser reports whether msg is a user message the user wrote: user role
// and no compaction marker key.
func IsRealUser(msg *schema.Message) bool { return message.IsRealUser(msg) }

// IsToolResult reports whether msg carries a tool call's result.
func IsToolResult(msg *schema.Message) bool { return message.IsToolResult(msg) }

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
func ReasoningSent(msg *schema.Message) string { return message.ReasoningSent(msg) }

// Digest is the SHA-256 of a message's canonical encoding, or of a prefix
// of a conversation (PrefixDigest).
type Digest [sha256.Size]byte

// MessageDigest returns the content digest of m. A message whose Extra holds
// a value encoding/json cannot encode gets a digest of its pointer instead:
// such a message is equal only to itself, as before content identity, and
// never matches a message in another process. A nil message has the digest
// of JSON null.
func MessageDigest(m *schema.Message) Digest { return Digest(digest.Of(m)) }

// PrefixDigest returns the content digest of messages as a sequence: the
// SHA-256 of the encoding's version, the number of messages and their
// MessageDigests in order. Two conversations have the same PrefixDigest
// only if they hold the same messages, by content, in the same order.
func PrefixDigest(messages []*schema.Message) Digest { return Digest(digest.Prefix(messages)) }

// ReplacedMessages counts the messages of before that after no longer
// holds: those a compaction summarized, dropped or pruned. Messages are
// matched by content (MessageDigest), each message of after standing for
// at most one of before, so a compaction applied from a Store, whose
// messages are decoded copies, counts what it replaced and not every
// message it kept. Counting by pointer would call each kept copy replaced.
func ReplacedMessages(before, after []*schema.Message) int {
	left := digest.Counts(after)
	n := 0
	for _, m := range before {
		d := digest.Of(m)
		if left[d] > 0 {
			left[d]--
			continue
		}
		n++
	}
	return n
}

// SplitLedger splits a summary message's text around the identifier block
// the ledger appended to it (its "## Identifiers (verbatim)" heading and
// "- " lines): before+block+after == text, block "" when the summary has no
// such block; the archive's pointer line after the summary goes to after.
// Tools that show a summary use it to tell the summarizer's
// words from the identifiers the ledger restored.
func SplitLedger(text string) (before, block, after string) {
	return summarytext.Split(text)
}

// Eino checkpoints (ADK interrupt and resume) encode messages with gob, and
// gob encodes a value held in an interface only if its concrete type is
// registered. The markers this package writes into schema.Message.Extra are
// map[string]any, and the ledger's remembered identifiers inside them are
// []any; registering both here means a program that imports this package can
// checkpoint a compacted conversation without registering anything itself.
func init() {
	registerGob(map[string]any{})
	registerGob([]any{})
}

// registerGob registers v with gob under its default name. gob panics when
// the type is already registered under another name; that registration
// serves encoding just as well, so the panic is not the program's concern.
func registerGob(v any) {
	defer func() { _ = recover() }()
	gob.Register(v)
}

// NewSummaryMessage builds the message that stands for n replaced messages:
// a user message "<conversation_summary>\nTEXT\n</conversation_summary>"
// carrying the summarization marker. Summary tags inside TEXT are escaped
// ("&lt;/conversation_summary&gt;"), as in the compactor's own summaries.
// When TEXT quotes tool output marked as data («…», see the identifier
// ledger) and does not say so already, a line saying what the marks mean
// comes first, so the model reading the summary knows them.
func NewSummaryMessage(text string, n int) *schema.Message {
	return summarytext.New(text, n, nil)
}
