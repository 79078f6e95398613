package identifiers

import (
	"slices"
	"strings"
)

// Kind says which extractor found a Match.
type Kind string

// The kinds of the default extractors.
const (
	KindURL        Kind = "url"
	KindPath       Kind = "path"
	KindUUID       Kind = "uuid"
	KindHash       Kind = "hash"
	KindToolCallID Kind = "tool_call_id"
	KindError      Kind = "error"
	KindArgument   Kind = "argument"
	KindAttachment Kind = "attachment"
)

// Match is one identifier found in a text.
type Match struct {
	Kind  Kind
	Value string // a verbatim substring of the text
	Start int    // byte offset of Value in the text
}

// End is the byte offset just past Value.
func (m Match) End() int { return m.Start + len(m.Value) }

// Extractor finds identifiers in a text. Implementations must be
// deterministic, safe for concurrent use, and return Values that are
// substrings of text at their Start.
type Extractor interface {
	Extract(text string) []Match
}

// ExtractorFunc adapts an ordinary function to Extractor.
type ExtractorFunc func(text string) []Match

// Extract calls f.
func (f ExtractorFunc) Extract(text string) []Match { return f(text) }

// DefaultExtractors returns, in priority order, Attachments, URLs, Paths,
// UUIDs, Hashes, ToolCallIDs, QuotedErrors, ErrorLines and
// Arguments(DefaultArgumentKeys()...).
// Each call returns a new slice the caller may modify.
func DefaultExtractors() []Extractor {
	return []Extractor{
		Attachments(), URLs(), Paths(), UUIDs(), Hashes(), ToolCallIDs(), QuotedErrors(), ErrorLines(),
		Arguments(DefaultArgumentKeys()...),
	}
}

// Extract runs the extractors over text (nil means DefaultExtractors) and
// merges their matches: ordered by position, a match lying wholly inside an
// earlier, longer one is dropped (a hash inside a URL, a path inside an error
// string, since keeping the outer string keeps the inner one), and each value
// is kept once, at its first position. Ties at one position go to the longer
// match, then to the extractor listed first.
func Extract(text string, extractors []Extractor) []Match {
	if extractors == nil {
		extractors = DefaultExtractors()
	}
	type ranked struct {
		Match
		prio, seq int
	}
	var all []ranked
	for prio, ex := range extractors {
		if ex == nil {
			continue
		}
		for _, m := range ex.Extract(text) {
			if m.Value != "" {
				all = append(all, ranked{m, prio, len(all)})
			}
		}
	}
	// seq makes the order total, so the faster unstable sort is still
	// deterministic.
	slices.SortFunc(all, func(a, b ranked) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if len(a.Value) != len(b.Value) {
			return len(b.Value) - len(a.Value)
		}
		if a.prio != b.prio {
			return a.prio - b.prio
		}
		return a.seq - b.seq
	})
	out := make([]Match, 0, len(all))
	seen := make(map[string]struct{}, len(all))
	maxEnd := -1
	for _, r := range all {
		if r.End() <= maxEnd {
			continue
		}
		maxEnd = r.End()
		if _, dup := seen[r.Value]; dup {
			continue
		}
		seen[r.Value] = struct{}{}
		out = append(out, r.Match)
	}
	return out
}

// Identifiers returns the values DefaultExtractors find in text, deduplicated,
// in order of first appearance.
func Identifiers(text string) []string {
	ms := Extract(text, nil)
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Value
	}
	return out
}

// eachLine calls fn with every line of text and its byte offset; lines do not
// include their "\n". Line-wise scanning keeps regular expressions on short
// inputs, where Go's matcher is fastest, and lets cheap substring tests skip
// most lines.
func eachLine(text string, fn func(line string, off int)) {
	off := 0
	for {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			fn(text[off:], off)
			return
		}
		fn(text[off:off+i], off)
		off += i + 1
	}
}
