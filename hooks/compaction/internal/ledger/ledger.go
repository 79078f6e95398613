// Package ledger keeps identifiers verbatim across summaries: it collects
// them from the messages a round replaces (and from the summaries folded
// among them), repairs what a summary lost by appending them under the
// "## Identifiers (verbatim)" heading, and fits that block to its budget.
//
// Summaries lose exact identifiers: a path, an id or an error string written
// from memory is not the one the agent needs. The ledger finds them without
// any model; compaction.LedgerConfig is its public configuration, converted
// to Config at the package's edge.
package ledger

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// Config mirrors compaction.LedgerConfig field for field, so the public
// package converts one to the other; its godoc says what each field means
// and its defaults.
type Config struct {
	Disabled      bool
	Extractors    []identifiers.Extractor
	MaxTokens     int
	MaxRemembered int
}

// Stats mirrors compaction.IdentifierStats: what the ledger found and did in
// one round.
type Stats struct {
	Found    int
	Survived int
	Appended int
	Dropped  int
}

// SurvivalRate is Survived/Found before repair; 1 when nothing was found.
func (s Stats) SurvivalRate() float64 {
	if s.Found == 0 {
		return 1
	}
	return float64(s.Survived) / float64(s.Found)
}

// Ledger is a compactor's identifier ledger, made by New. Its zero value
// is not meant for use.
type Ledger struct {
	off        bool
	extractors []identifiers.Extractor
	maxTokens  int // 0: sized from the target (CapFor)
	remember   int
}

// New is the ledger cfg configures, nil for the defaults: on, the default
// extractors, the cap sized from the target, 200 identifiers remembered. A
// negative MaxTokens or MaxRemembered is an error naming the field.
func New(cfg *Config) (Ledger, error) {
	l := Ledger{extractors: identifiers.DefaultExtractors(), remember: 200}
	if cfg == nil {
		return l, nil
	}
	if cfg.MaxTokens < 0 {
		return l, fmt.Errorf("compaction: LedgerConfig.MaxTokens must be at least 0, got %d", cfg.MaxTokens)
	}
	if cfg.MaxRemembered < 0 {
		return l, fmt.Errorf("compaction: LedgerConfig.MaxRemembered must be at least 0, got %d", cfg.MaxRemembered)
	}
	l.off = cfg.Disabled
	if cfg.Extractors != nil {
		l.extractors = slices.Clone(cfg.Extractors)
	}
	if cfg.MaxTokens > 0 {
		l.maxTokens = cfg.MaxTokens
	}
	if cfg.MaxRemembered > 0 {
		l.remember = cfg.MaxRemembered
	}
	return l, nil
}

// The default cap of the ledger's block (LedgerConfig.MaxTokens 0). A fixed
// 256 tokens kept 59 % of the fidelity corpus's identifiers in a 16,000-token
// window; what a summary must carry grows with the conversation it stands
// for, so the cap follows the target. Beyond about 8 tokens per identifier
// the marker remembers, a larger block would list values that the next fold
// forgets anyway.
const (
	ledgerCapShare   = 4 // a quarter of the target
	ledgerCapMin     = 256
	ledgerCapPerItem = 8
)

// CapFor is the block's cap in a compaction to target tokens.
func (l Ledger) CapFor(target int) int {
	if l.maxTokens > 0 {
		return l.maxTokens
	}
	return max(min(target/ledgerCapShare, ledgerCapPerItem*l.remember), ledgerCapMin)
}

// Entry is one identifier with how often and how recently it was used.
type Entry struct {
	value string
	uses  int    // how many replaced messages mention it
	last  int    // position of the newest message that mentions it
	ref   string // archive reference of the span that held its newest mention, "" for the span being replaced (refs.go)
	tag   int    // its reference's number in the block's legend, 0 for none
}

// MarkerKey is the marker field that remembers a summary's identifiers:
// the newest MaxRemembered values of its ledger, which Repair returns in the
// fields the summary message carries and Collect reads back when the
// summary is folded into a later one.
const MarkerKey = "identifiers"

// Remembered is the list of identifiers a marker's MarkerKey field holds:
// a []string as written, or the []any a decoded marker holds (non-strings
// and blanks left out); nil for anything else.
func Remembered(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// arenaShare sizes Collect's arena: the distinct values found take about
// this fraction of the rendered text (a ninth to a twelfth in the
// benchmark's conversations); the arena grows if they take more.
const arenaShare = 8

// identifiersPerBytes sizes Collect's table: about one distinct identifier
// is expected per this many bytes of rendered messages.
const identifiersPerBytes = 256

// Collect extracts identifiers from the planned messages, oldest first,
// plus those remembered by summaries among them.
func (l Ledger) Collect(messages []*schema.Message, indices []int) []Entry {
	if l.off {
		return nil
	}
	// Each message is rendered into one reused buffer and read in place
	// (unsafe.String): the text of the replaced messages, megabytes in a
	// long conversation, was a fresh allocation per round, the largest one
	// of a compaction. What must outlive the message is only each distinct
	// value found, copied into the arena when first noted: a few percent of
	// the text. Nothing else keeps a substring of the buffer: matches are
	// read before the next message overwrites it.
	hint := transcript.SizeHint(messages, indices)
	// The buffer starts at about the largest message's size: grown from
	// empty by doubling, it allocated about twice that on the way, as much
	// as a tenth of what a small compaction allocates.
	largest := 0
	for _, i := range indices {
		largest = max(largest, transcript.MessageSizeHint(messages[i]))
	}
	var scratch bytes.Buffer
	scratch.Grow(largest)
	var arena strings.Builder
	arena.Grow(hint / arenaShare)
	// Sized for about one distinct identifier per identifiersPerBytes bytes
	// of text (one per 200 to 300 in the benchmark's conversations): growing
	// the map from a few entries to thousands cost as much as filling it.
	byValue := make(map[string]int, max(len(indices), hint/identifiersPerBytes))
	entries := make([]Entry, 0, max(len(indices), hint/identifiersPerBytes))
	// One scanner for all the messages: its buffers serve each in turn.
	scan := identifiers.NewScanner(l.extractors)
	// note counts v at pos; owned says whether v may be kept as it is
	// (false: it lies in scratch, and is copied to the arena if kept).
	note := func(v string, pos int, owned bool, ref string) {
		if i, ok := byValue[v]; ok {
			entries[i].uses++
			entries[i].last = pos
			entries[i].ref = ref
			return
		}
		if !owned {
			// A Builder only appends, so what it returned stays as it
			// was when it grows.
			start := arena.Len()
			arena.WriteString(v)
			v = arena.String()[start:]
		}
		byValue[v] = len(entries)
		entries = append(entries, Entry{value: v, uses: 1, last: pos, ref: ref})
	}
	for pos, i := range indices {
		m := messages[i]
		ref, _ := archive.RefOf(m) // "" without an archive
		if fields, ok := message.CopyFields(m); ok {
			carried := summarytext.BlockRefs(m.Content)
			remembered := Remembered(fields[MarkerKey])
			for _, v := range remembered {
				note(v, pos, true, cmp.Or(carried[v], ref))
			}
			for _, v := range summarytext.BlockValues(m.Content) {
				if !slices.Contains(remembered, v) {
					note(v, pos, true, cmp.Or(carried[v], ref))
				}
			}
		}
		var text string
		owned := true
		if message.Is(m, message.StrategySummarization) {
			// The summary's wrapping tags are not the conversation's: the
			// closing tag would read as the path "/conversation_summary".
			// Marked tool text is read unmarked: the extractors split at
			// white space, which marking replaced ("ˆ/tmp/a.go:ˆno").
			text = spotlight.UnmarkAll(transcript.SummaryBody(m))
		} else {
			scratch.Reset()
			render.Message(&scratch, m, render.Options{Attachment: render.Describe})
			text = unsafe.String(unsafe.SliceData(scratch.Bytes()), scratch.Len())
			owned = false
		}
		for _, match := range scan.Scan(text) {
			note(match.Value, pos, owned, ref)
		}
	}
	return entries
}

// Value is the identifier as found.
func (e Entry) Value() string { return e.value }

// Off reports whether the ledger is disabled.
func (l Ledger) Off() bool { return l.off }

// Capped reports whether Config.MaxTokens fixed the block's cap, rather than
// CapFor sizing it from the target.
func (l Ledger) Capped() bool { return l.maxTokens > 0 }

// WithCap is l with its block capped at maxTokens (CapFor's answer for a
// round), so Repair fits the block to that budget.
func (l Ledger) WithCap(maxTokens int) Ledger {
	l.maxTokens = maxTokens
	return l
}

// Identity is the part of the compactor's identity the ledger's settings
// make: whether it is off, its cap, how many it remembers, and the
// extractors' types.
func (l Ledger) Identity() string {
	extractors := make([]string, len(l.extractors))
	for i, e := range l.extractors {
		extractors[i] = fmt.Sprintf("%T", e)
	}
	return fmt.Sprintf("ledger_off=%v ledger_max=%d ledger_remember=%d extractors=%s",
		l.off, l.maxTokens, l.remember, strings.Join(extractors, ","))
}
