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
// UUIDs, Hashes, QuotedErrors, ErrorLines and
// Arguments(DefaultArgumentKeys()...). ToolCallIDs is not among them: once
// its call is summarized a tool-call id names nothing the agent can use.
// Each call returns a new slice the caller may modify.
func DefaultExtractors() []Extractor {
	return []Extractor{
		Attachments(), URLs(), Paths(), UUIDs(), Hashes(), QuotedErrors(), ErrorLines(),
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
	var s Scanner
	s.extractors = extractors
	return s.scan(text, nil)
}

// A Scanner runs Extract over many texts in turn with one list of
// extractors, reusing its buffers from one text to the next: extracting
// from every message of a conversation then costs a few allocations in all
// instead of a few per message, which made up a third of what compaction
// allocated. A Scanner is not safe for concurrent use; its zero value is not
// usable (see NewScanner).
type Scanner struct {
	extractors           []Extractor
	buf, paths, hex, out []Match
	lines                [][]Match // the matches of each lineAppender, in order
	lineFns              []activeLine
	seen                 map[string]struct{}
	memo                 quoteMemo // the closing quotes of the line being read
}

// NewScanner returns a Scanner running extractors (nil means
// DefaultExtractors). The slice is read, not copied: do not modify it while
// the Scanner is in use.
func NewScanner(extractors []Extractor) *Scanner {
	if extractors == nil {
		extractors = DefaultExtractors()
	}
	return &Scanner{extractors: extractors}
}

// Scan returns what Extract(text, extractors) returns. The slice, not the
// Values in it, is the Scanner's and is overwritten by its next Scan: copy it
// to keep it.
func (s *Scanner) Scan(text string) []Match {
	s.out = s.scan(text, s.out[:0])
	return s.out
}

// scan appends to out the merged matches of text, reusing s's buffers.
func (s *Scanner) scan(text string, out []Match) []Match {
	// Each extractor scans left to right, so its matches come sorted (a
	// custom one's are sorted here if not): merging the lists is linear,
	// where sorting all matches together was the largest cost of extraction.
	// The built-in extractors append to one buffer that holds every list,
	// and small fixed arrays hold the lists and heads for up to eight
	// extractors (the defaults): a text costs a few allocations, not a few
	// per extractor.
	var listsBuf [8][]Match
	var headsBuf [8]int
	var endsBuf [8]int
	ends := s.collect(text, endsBuf[:0])
	lists := cutLists(s.buf, ends, listsBuf[:0])
	heads := headsBuf[:0]
	if len(lists) <= len(headsBuf) {
		heads = headsBuf[:len(lists)]
	} else {
		heads = make([]int, len(lists))
	}
	return s.merge(out, lists, heads, len(s.buf))
}

// collect runs every extractor of s over text, appending each one's matches,
// sorted, to s.buf, and appends to ends where each extractor's list ends in
// it.
func (s *Scanner) collect(text string, ends []int) []int {
	buf := s.buf[:0]
	if buf == nil {
		buf = make([]Match, 0, len(text)/64+4)
	}
	hex, paths, shared, withPaths := s.sharedScan(text)
	s.scanLines(text)
	line := 0
	for _, ex := range s.extractors {
		if ex == nil {
			continue
		}
		start := len(buf)
		_, isPaths := ex.(pathExtractor)
		_, isLine := ex.(lineAppender)
		switch h, _ := ex.(hexExtractor); {
		case isLine:
			buf = append(buf, s.lines[line]...)
			line++
		case withPaths && isPaths:
			buf = append(buf, paths...)
		case shared && h == hexExtractor{uuids: true}:
			buf = appendKind(buf, hex, KindUUID)
		case shared && h == hexExtractor{hashes: true}:
			buf = appendKind(buf, hex, KindHash)
		default:
			if a, ok := ex.(appender); ok {
				buf = a(buf, text)
			} else {
				buf = append(buf, ex.Extract(text)...)
			}
		}
		if ms := buf[start:]; !slices.IsSortedFunc(ms, comparePosition) {
			slices.SortStableFunc(ms, comparePosition)
		}
		ends = append(ends, len(buf))
	}
	s.buf = buf
	return ends
}

// cutLists appends to lists each extractor's list, cut from buf at ends.
// The lists are cut only after collect is done: appending may have moved
// buf. Empty lists are left out (most extractors find nothing in most
// messages), so the merge compares only the heads that can win; the
// others keep their order, which breaks ties.
func cutLists(buf []Match, ends []int, lists [][]Match) [][]Match {
	for k, end := range ends {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		if end > start {
			lists = append(lists, buf[start:end])
		}
	}
	return lists
}

// merge appends to out the matches of lists in position order, heads
// holding each list's next match (all zero on entry), leaving out a match
// inside one already taken and a value already taken. total is the number
// of matches in all lists.
func (s *Scanner) merge(out []Match, lists [][]Match, heads []int, total int) []Match {
	if out == nil {
		out = make([]Match, 0, total)
	}
	first := len(out)
	seen := s.seenSet(total)
	maxEnd := -1
	for {
		best := nextList(lists, heads)
		if best < 0 {
			return out
		}
		m := lists[best][heads[best]]
		heads[best]++
		if m.End() <= maxEnd {
			continue
		}
		maxEnd = m.End()
		if seen == nil {
			if slices.ContainsFunc(out[first:], func(o Match) bool { return o.Value == m.Value }) {
				continue
			}
		} else {
			if _, dup := seen[m.Value]; dup {
				continue
			}
			seen[m.Value] = struct{}{}
		}
		out = append(out, m)
	}
}

// seenSet returns s's emptied set of values for a text of total matches,
// or nil when there are few: few matches are deduplicated by looking
// through out, since a map for each message's handful of identifiers cost
// more than the search.
func (s *Scanner) seenSet(total int) map[string]struct{} {
	if total <= smallMatchCount {
		return nil
	}
	if s.seen == nil {
		s.seen = make(map[string]struct{}, total)
	} else {
		clear(s.seen)
	}
	return s.seen
}

// nextList moves each list's head past matches with no value and returns
// the list whose head comes first, or -1 when every list is done. A tie
// goes to the list that comes first.
func nextList(lists [][]Match, heads []int) int {
	best := -1
	for k, ms := range lists {
		h := heads[k]
		for h < len(ms) && ms[h].Value == "" {
			h++
		}
		heads[k] = h
		// Strictly before: a tie goes to the extractor listed first.
		if h < len(ms) && (best < 0 || comparePosition(ms[h], lists[best][heads[best]]) < 0) {
			best = k
		}
	}
	return best
}

// smallMatchCount is the most matches Extract deduplicates without a map.
const smallMatchCount = 16

// sharedScan runs UUIDs and Hashes as one scan when both are listed, and
// Paths in the same scan when it is listed too (scanPathsAndHex), into s's
// buffers. It returns the hex matches, both kinds in order, and the paths;
// shared is false when UUIDs and Hashes are not both there, withPaths when
// Paths was not scanned.
func (s *Scanner) sharedScan(text string) (hex, paths []Match, shared, withPaths bool) {
	var u, h, p bool
	for _, ex := range s.extractors {
		if _, ok := ex.(pathExtractor); ok {
			p = true
		}
		switch x, _ := ex.(hexExtractor); x {
		case hexExtractor{uuids: true}:
			u = true
		case hexExtractor{hashes: true}:
			h = true
		}
	}
	if !u || !h {
		return nil, nil, false, false
	}
	if p {
		s.paths, s.hex = scanPathsAndHex(text, s.paths[:0], s.hex[:0])
		return s.hex, s.paths, true, true
	}
	s.hex = appendHex(s.hex[:0], text, true, true)
	return s.hex, nil, true, false
}

// scanLines runs the line extractors (lineAppender) of s in one pass over
// the lines of text, each appending to its list in s.lines. Splitting the
// text into lines once for all of them, instead of once each, matters on
// code and logs, whose many short lines cost more to visit than to read.
func (s *Scanner) scanLines(text string) {
	// An extractor whose needed bytes the text lacks finds nothing on any
	// line and is not called: most messages hold no "<" and many no quote,
	// and a call per line per extractor cost more than the extractors'
	// work on such lines.
	fns := s.lineFns[:0]
	n := 0
	for _, ex := range s.extractors {
		if f, ok := ex.(lineAppender); ok {
			if f.needs == "" || containsAnyByte(text, f.needs) {
				fns = append(fns, activeLine{fn: f.fn, list: n})
			}
			n++
		}
	}
	s.lineFns = fns
	for len(s.lines) < n {
		s.lines = append(s.lines, nil)
	}
	lines := s.lines[:n]
	for i := range lines {
		lines[i] = lines[i][:0]
	}
	if len(fns) == 0 {
		return
	}
	off := 0
	for {
		end := strings.IndexByte(text[off:], '\n')
		line := text[off:]
		if end >= 0 {
			line = text[off : off+end]
		}
		s.memo.reset()
		for _, f := range fns {
			lines[f.list] = f.fn(lines[f.list], line, off, &s.memo)
		}
		if end < 0 {
			return
		}
		off += end + 1
	}
}

// lineAppender is a built-in extractor that reads text line by line: fn
// appends to dst the matches of one line, which starts at byte off of the
// text. Scanner runs all of its line extractors in one pass over the lines,
// with a quoteMemo for the line (nil when an extractor runs alone).
// needs, when not empty, lists bytes one of which every match holds or
// follows on its line: a text holding none of them has no match.
type lineAppender struct {
	fn    func(dst []Match, line string, off int, memo *quoteMemo) []Match
	needs string
}

// Extract implements Extractor.
func (f lineAppender) Extract(text string) []Match {
	var out []Match
	eachLine(text, func(line string, off int) { out = f.fn(out, line, off, nil) })
	return out
}

// containsAnyByte is strings.ContainsAny for ASCII bytes: one
// strings.IndexByte per byte, which reads a long text many bytes at a time
// where ContainsAny tests it byte by byte.
func containsAnyByte(text, bytes string) bool {
	for i := 0; i < len(bytes); i++ {
		if strings.IndexByte(text, bytes[i]) >= 0 {
			return true
		}
	}
	return false
}

// activeLine is a line extractor a Scanner runs on the current text, and
// the index of its list in Scanner.lines.
type activeLine struct {
	fn   func(dst []Match, line string, off int, memo *quoteMemo) []Match
	list int
}

// appendKind appends the matches of one kind, in order.
func appendKind(dst, matches []Match, kind Kind) []Match {
	for _, m := range matches {
		if m.Kind == kind {
			dst = append(dst, m)
		}
	}
	return dst
}

// appender is a built-in extractor: it appends its matches to dst, so
// Extract gathers all the built-ins' matches in one buffer.
type appender func(dst []Match, text string) []Match

// Extract implements Extractor.
func (a appender) Extract(text string) []Match { return a(nil, text) }

// comparePosition orders matches by position, the longer first at one
// position.
func comparePosition(a, b Match) int {
	if a.Start != b.Start {
		return a.Start - b.Start
	}
	return len(b.Value) - len(a.Value)
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
