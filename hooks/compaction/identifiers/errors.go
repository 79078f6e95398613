package identifiers

import "strings"

// QuotedErrors finds quoted strings ("...", '...' or `...`, on one line, 4 to
// 300 bytes) that read like an error message: they contain a blank or a colon
// (so a lone JSON key such as "error" is not one) and one of the words in
// errorWords, in any case. The Value is the text between the quotes, escapes
// kept as written. A single quote opens only after a non-word character and
// closes only before one, so apostrophes do not pair up.
func QuotedErrors() Extractor { return lineAppender{fn: quotedErrorsLine, needs: "\"'`"} }

// ErrorLines finds lines that state an error: after an optional transcript
// header ("[tool:NAME id=ID] "), blanks and dashes, the line starts with a
// word ending in "Error" or "Exception" ("TypeError", "java.io.IOException"),
// or with error, ERROR, Fatal, fatal, FATAL, panic, FAIL or Traceback, and
// has more after it. The Value is the rest of the line (up to 300 bytes; a
// longer line is skipped rather than cut).
func ErrorLines() Extractor { return lineAppender{fn: errorLinesLine} }

var errorWords = []string{
	"error", "fail", "exception", "panic", "denied", "not found", "no such", "invalid", "refused",
	"timeout", "timed out", "cannot", "unable", "fatal", "traceback",
}

const (
	minQuoted = 4
	maxQuoted = 300
)

func quotedErrorsLine(out []Match, line string, off int, memo *quoteMemo) []Match {
	if !hasQuote(line) {
		return out
	}
	i := 0
	for i < len(line) {
		q := line[i]
		if q != '"' && q != '\'' && q != '`' || q == '\'' && i > 0 && isWordByte(line[i-1]) {
			i++
			continue
		}
		j := closingQuote(line, i)
		memo.note(i, j)
		if j < 0 {
			i++
			continue
		}
		if s := line[i+1 : j]; isErrorText(s) {
			out = append(out, Match{Kind: KindError, Value: s, Start: off + i + 1})
		}
		i = j + 1
	}
	return out
}

// quoteMemo holds the closing quotes QuotedErrors found on the line a
// Scanner reads, so Arguments, which reads the same double-quoted strings
// of JSON, looks them up instead of finding them again: finding closing
// quotes was a tenth of extraction. closingQuote depends on the line and
// the opening quote's index only, so a remembered answer is the one it
// would give. The pairs come in order of their opening quote, and
// Arguments asks in that order too, so a cursor finds them.
type quoteMemo struct {
	pairs []quotePair
	next  int // the first pair Arguments has not passed
}

type quotePair struct{ open, close int }

// reset empties m for a new line.
func (m *quoteMemo) reset() {
	m.pairs = m.pairs[:0]
	m.next = 0
}

// note remembers that the quote at open closes at close (-1: nowhere). A
// nil memo remembers nothing.
func (m *quoteMemo) note(open, close int) {
	if m != nil {
		m.pairs = append(m.pairs, quotePair{open, close})
	}
}

// closing is closingQuote(line, open), remembered or found; open must not
// be less than in the previous call since the last reset.
func (m *quoteMemo) closing(line string, open int) int {
	if m != nil {
		for m.next < len(m.pairs) && m.pairs[m.next].open < open {
			m.next++
		}
		if m.next < len(m.pairs) && m.pairs[m.next].open == open {
			return m.pairs[m.next].close
		}
	}
	return closingQuote(line, open)
}

// closingQuote returns the index of the quote closing the one at open, or -1.
// The candidates are found with strings.IndexByte; only a double-quoted
// string with a backslash before its candidate is walked byte by byte
// (closingQuoteFrom), since an escape may hide the quote.
func closingQuote(line string, open int) int {
	q := line[open]
	from := open + 1
	for {
		k := strings.IndexByte(line[from:], q)
		if k < 0 {
			return -1
		}
		j := from + k
		if q == '"' {
			if b := strings.IndexByte(line[from:j], '\\'); b >= 0 {
				return closingQuoteFrom(line, q, from+b)
			}
		}
		if q == '\'' && j+1 < len(line) && isWordByte(line[j+1]) {
			from = j + 1
			continue
		}
		return j
	}
}

// closingQuoteFrom walks line from index from (after the opening quote q)
// to the quote that closes it, skipping what a backslash escapes in a
// double-quoted string; -1 when none does.
func closingQuoteFrom(line string, q byte, from int) int {
	for j := from; j < len(line); j++ {
		switch c := line[j]; {
		case c == '\\' && q == '"':
			j++
		case c == q:
			if q == '\'' && j+1 < len(line) && isWordByte(line[j+1]) {
				continue
			}
			return j
		}
	}
	return -1
}

func isErrorText(s string) bool {
	if len(s) < minQuoted || len(s) > maxQuoted || strings.IndexByte(s, ' ') < 0 && strings.IndexByte(s, ':') < 0 {
		return false
	}
	if isASCII(s) {
		return hasErrorWordASCII(s)
	}
	low := strings.ToLower(s)
	for _, w := range errorWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

var errorLineWords = []string{"error", "ERROR", "Fatal", "fatal", "FATAL", "panic", "FAIL", "Traceback"}

func errorLinesLine(out []Match, line string, off int, _ *quoteMemo) []Match {
	start := 0
	if strings.HasPrefix(line, "[") {
		if k := strings.Index(line, "] "); k > 0 {
			start = k + 2
		}
	}
	for start < len(line) && (line[start] == ' ' || line[start] == '\t' || line[start] == '-') {
		start++
	}
	// strings.TrimRight(line[start:], " \t\r"), without building the set
	// of bytes for every line.
	rest := line[start:]
	for len(rest) > 0 && (rest[len(rest)-1] == ' ' || rest[len(rest)-1] == '\t' || rest[len(rest)-1] == '\r') {
		rest = rest[:len(rest)-1]
	}
	if len(rest) > maxQuoted || !startsWithErrorWord(rest) {
		return out
	}
	return append(out, Match{Kind: KindError, Value: rest, Start: off + start})
}

// startsWithErrorWord checks the first word (letters, digits, "_" and ".")
// and that something follows it.
func startsWithErrorWord(s string) bool {
	n := 0
	for n < len(s) && (isWordByte(s[n]) || s[n] == '.') {
		n++
	}
	if n == 0 || n >= len(s)-1 {
		return false
	}
	w := s[:n]
	if strings.HasSuffix(w, "Error") || strings.HasSuffix(w, "Exception") {
		return true
	}
	for _, e := range errorLineWords {
		if w == e {
			return true
		}
	}
	return false
}

// hasQuote is strings.ContainsAny(line, "\"'`") without building the set of
// bytes on every call, which was a tenth of the error extractors' time.
func hasQuote(line string) bool {
	return strings.IndexByte(line, '"') >= 0 || strings.IndexByte(line, '\'') >= 0 || strings.IndexByte(line, '`') >= 0
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// errorWordsByFirst lists errorWords by their first letter.
var errorWordsByFirst = func() (t [256][]string) {
	for _, w := range errorWords {
		t[w[0]] = append(t[w[0]], w)
	}
	return t
}()

// errorPairs has, for each byte that starts an error word in either case,
// bit c-'a' set when a word goes on with the letter c: most letters of a
// text start no word of errorWords with the letter that follows them, and
// testing the pair first spares comparing each word.
var errorPairs = func() (t [256]uint32) {
	for _, w := range errorWords {
		bit := uint32(1) << (w[1] - 'a')
		t[w[0]] |= bit
		t[w[0]-'a'+'A'] |= bit
	}
	return t
}()

// hasErrorWordASCII is, for ASCII s, whether strings.ToLower(s) holds one of
// errorWords, found in one pass over s without lowering a copy of it. (Only
// ASCII text can be tested so: ToLower maps "K" (Kelvin) to "k" and "İ" to
// two code points.) Every error word is at least four bytes long and starts
// with two letters.
func hasErrorWordASCII(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		m := errorPairs[s[i]]
		if m == 0 {
			continue
		}
		// c|0x20 is in 'a'..'z' exactly when c is an ASCII letter.
		c := s[i+1] | 0x20
		if c < 'a' || c > 'z' || m&(1<<(c-'a')) == 0 {
			continue
		}
		for _, w := range errorWordsByFirst[lowerASCII(s[i])] {
			if len(s)-i >= len(w) && equalFoldASCII(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFoldASCII reports whether s lowered is lower (lower is in lower case).
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		if lowerASCII(s[i]) != lower[i] {
			return false
		}
	}
	return true
}
