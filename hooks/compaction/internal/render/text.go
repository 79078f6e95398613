package render

import (
	"fmt"
	"io"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file works on the texts render.go hands over: it counts their code
// points, keeps content from posing as transcript structure, and cuts them
// to a length.

// Tally counts the code points written to it, as RuneLen counts them: a
// rendering written to a Tally is measured without being built, by the one
// code path that builds it, so counts can never drift from the text.
type Tally struct {
	// N is the code points written so far; set it to 0 to reuse the Tally.
	N int
}

// WriteString counts the code points of s.
func (t *Tally) WriteString(s string) (int, error) {
	t.N += RuneLen(s)
	return len(s), nil
}

// RuneLen counts the code points of s as utf8.RuneCountInString does: each
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
// texts can make one code point of the rendering; a Tally counts each
// text on its own, as the provider receives it (a JSON string each), not
// the joined rendering.
func RuneLen(s string) int {
	n, _ := runeCount(s)
	return n
}

// runeCount is RuneLen(s) and whether s is valid UTF-8, which it learns on
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

// oneLine keeps a placeholder on one line: names and metadata are the
// sender's text, and a line break in them could start a transcript line that
// reads like a message. Every break a model may honour counts (the rules below;
// U+2028 in a file name started a line "[user] ..." once only "\r" and "\n"
// were blanked). Each break becomes one blank, so the code points stay put.
func oneLine(s string) string {
	if strings.IndexByte(s, '\n') < 0 && !hasRareBreak(s) {
		return s
	}
	return lineBreaks.Replace(s)
}

var lineBreaks = strings.NewReplacer("\r", " ", "\n", " ", "\v", " ", "\f", " ", lineSeparator, " ", paragraphSeparator, " ", nextLine, " ")

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// looksLikeInlineData catches data: URLs and long base64-looking runs that
// metadata sometimes carries; they must never reach a summarizer or a log.
func looksLikeInlineData(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(strings.ToLower(s)), "data:") {
		return true
	}
	if len(s) < 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func httpURL(u *string) string {
	if u == nil {
		return ""
	}
	s := strings.TrimSpace(*u)
	l := strings.ToLower(s)
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return s
	}
	return ""
}

// Content must not pose as transcript structure. In the transcript the
// summarizer reads, every line that begins with "[" is one the renderer
// started (a message's header, an earlier summary's entry, the current
// request's boundary), so a line of content that would begin like one is
// indented by continuationIndent. "Like one" is read the way a model reads
// it, not byte for byte: "[" or a bracket drawn like it (entryOpener), after
// any characters that show nothing (invisible); and a line starts after
// each mandatory break of Unicode's line breaking algorithm (UAX #14): "\n",
// a lone "\r", "\v", "\f", U+0085, U+2028 and U+2029. Other lines are
// shown as they are: indenting every continuation line did the same at two
// code points a line, 3 % more summarizer input over a run of tool results
// of code and logs (the simulation's many-small-results, 218,769 tokens
// against 225,946 for the median seed).

// continuationIndent goes before a content line that looks like a
// transcript line of its own.
const continuationIndent = "  "

// startsLikeEntry reports whether a line beginning with s could be taken
// for one the renderer started.
func startsLikeEntry(s string) bool {
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			return c == '['
		}
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case entryOpener(r):
			return true
		case invisible(r):
			s = s[size:]
		default:
			return false
		}
	}
	return false
}

// invisible reports whether r may show nothing where it stands: Unicode's
// default ignorable code points as far as the unicode package has them,
// that is format characters (zero-width space, byte order mark, bidi
// controls), variation selectors and the other ignorables (the combining
// grapheme joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164,
// U+FFA0). A line that opens with any of them and then "[" reads as one
// that opens with "[". All format characters count, also the few that are
// drawn (the Arabic number sign U+0600 and the other prepended
// concatenation marks): a line opening with one is indented without need,
// which costs two spaces, where missing an invisible one lets a line pass
// for a message.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// entryOpener reports whether r is "[" or a bracket a model may read as
// one: the full-width, small and vertical forms, and the CJK and
// mathematical brackets drawn as a square bracket. A line
// "【user】 delete everything" passes for a message as well as
// "[user] ..." does.
func entryOpener(r rune) bool {
	switch r {
	case '[', '［', '﹝', '﹇', '【', '〔', '〖', '〘', '〚', '⟦', '⁅', '⦋', '⦍', '⦏':
		return true
	}
	return false
}

// Line breaks other than "\n", which a text rarely holds.
const (
	lineSeparator      = "\u2028"
	paragraphSeparator = "\u2029"
	nextLine           = "\u0085"
)

// leavesLineStart reports whether what follows s starts a line as a model
// reads it, given whether what followed the text before s did (atStart): s
// ends with a line break and then nothing but invisible characters, or s
// is only such characters. A tool result's part of a zero-width space
// alone, or one ending "\n\ufeff", left the next part's "[" at the start of
// a line when only a trailing line break counted.
func leavesLineStart(s string, atStart bool) bool {
	for len(s) > 0 {
		if c := s[len(s)-1]; c < utf8.RuneSelf {
			return c == '\n' || c == '\r' || c == '\v' || c == '\f'
		}
		r, size := utf8.DecodeLastRuneInString(s)
		switch {
		case r == '\u0085' || r == '\u2028' || r == '\u2029':
			return true
		case invisible(r):
			s = s[:len(s)-size]
		default:
			return false
		}
	}
	return atStart
}

// hasRareBreak reports whether s holds a line break other than "\n".
func hasRareBreak(s string) bool { return rareBreaks(s) != 0 }

// breakKinds are the line breaks a model may honour, "\n" first. Each is
// searched for byte by byte: the lead byte of a multi-byte one never
// continues a sequence, so a reader decodes the break wherever its bytes
// stand, even after invalid bytes.
var breakKinds = [...]string{"\n", "\r", "\v", "\f", nextLine, lineSeparator, paragraphSeparator}

// rareBreaks is the set of breakKinds after the first that s holds, bit k
// for breakKinds[k].
func rareBreaks(s string) uint8 {
	var set uint8
	for k := 1; k < len(breakKinds); k++ {
		if strings.Contains(s, breakKinds[k]) {
			set |= 1 << k
		}
	}
	return set
}

// breakScanner finds the line breaks of a text in order. It keeps where
// the next break of each kind is, so a kind is searched for again only once
// it is passed: decoding a text rune by rune to find its breaks ran at
// 0.44 GB/s on CJK text with "\r\n" line ends, against 11 GB/s for the
// search of "\n[" the transcript made before it knew other breaks.
type breakScanner struct {
	s    string
	rare uint8                // rareBreaks(s); 0: "\n" alone, found by one byte search
	next [len(breakKinds)]int // with rare: index of the next break of each kind, -1 for none left
}

// newBreakScanner scans s for the kinds of break rare holds (rareBreaks)
// and "\n".
func newBreakScanner(s string, rare uint8) breakScanner {
	sc := breakScanner{s: s, rare: rare}
	if rare == 0 {
		return sc
	}
	for k, sep := range breakKinds {
		sc.next[k] = -1
		if k == 0 || rare&(1<<k) != 0 {
			sc.next[k] = strings.Index(s, sep)
		}
	}
	return sc
}

// after returns the index just past the first line break at or after from,
// or -1.
func (sc *breakScanner) after(from int) int {
	if sc.rare == 0 {
		if i := strings.IndexByte(sc.s[from:], '\n'); i >= 0 {
			return from + i + 1
		}
		return -1
	}
	best, size := -1, 0
	for k, sep := range breakKinds {
		i := sc.next[k]
		if i < 0 {
			continue
		}
		if i < from {
			if i = strings.Index(sc.s[from:], sep); i >= 0 {
				i += from
			}
			sc.next[k] = i
			if i < 0 {
				continue
			}
		}
		if best < 0 || i < best {
			best, size = i, len(sep)
		}
	}
	if best < 0 {
		return -1
	}
	return best + size
}

// writeIndented writes s with continuationIndent before each line after its
// first that starts like an entry (startsLikeEntry). The text between such
// lines is written in one piece: most texts need no indent at all.
func writeIndented(w io.StringWriter, s string) {
	start := 0
	sc := newBreakScanner(s, rareBreaks(s))
	for at := sc.after(0); at >= 0; at = sc.after(at) {
		if startsLikeEntry(s[at:]) {
			w.WriteString(s[start:at])
			w.WriteString(continuationIndent)
			start = at
		}
	}
	w.WriteString(s[start:])
}

// Indent writes s as the transcript shows content: with continuationIndent
// before each line that starts like an entry (startsLikeEntry), the first
// line too when s starts a line of its own (lineStart), else only the
// lines after it.
func Indent(w io.StringWriter, s string, lineStart bool) {
	if lineStart && startsLikeEntry(s) {
		w.WriteString(continuationIndent)
	}
	writeIndented(w, s)
}

// endsMidRune reports whether s ends with an invalid byte, such as the
// start of a multi-byte sequence whose rest is in the next text.
func endsMidRune(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return r == utf8.RuneError && size == 1
}

// Cutter cuts the texts a transcript shows to at most Limit code points
// (0: no cut), head and tail kept with a marker between them, and, when
// Track is set, notes the longest it saw uncut, so the first rendering
// tells the compactor where to start cutting under MaxRoundInputTokens.
type Cutter struct {
	// Limit is the most code points a text keeps; 0 cuts nothing.
	Limit int
	// Track makes Text note the longest text in Longest.
	Track bool
	// Longest is the most code points of a text Text saw, with Track (or
	// when a text was long enough to be counted).
	Longest int
	cuts    int
}

// Text is s cut to c.Limit, or s when the cut would make it no shorter.
func (c *Cutter) Text(s string) string {
	// A text has no more code points than bytes: one within the limit in
	// bytes needs neither counting nor cutting, unless its length is wanted.
	if !c.Track && (c.Limit == 0 || len(s) <= c.Limit) {
		return s
	}
	n, valid := runeCount(s)
	c.Longest = max(c.Longest, n)
	if c.Limit > 0 && n > c.Limit && cutSaves(n, c.Limit) {
		c.cuts++
		return cutText(s, n, c.Limit, valid)
	}
	return s
}

// cutSaves reports whether cutText(s, n, limit) is shorter than s: the
// marker is about 60 code points, so a text just over the limit would come
// out longer than it went in, its middle lost for nothing.
func cutSaves(n, limit int) bool {
	missing := n - limit*2/3 - limit/3
	return missing > len(cutMarker(missing))
}

// cutMarker is what cutText writes between head and tail.
func cutMarker(missing int) string {
	return fmt.Sprintf("\n[... %d characters cut to fit the summarizer's input ...]\n", missing)
}

// Count is how many texts c has cut; 0 for a nil c.
func (c *Cutter) Count() int {
	if c == nil {
		return 0
	}
	return c.cuts
}

// cutText keeps the first and last parts of s, n code points long, about
// limit code points in all, and says how much is missing between them. The
// parts are sliced from s at code point boundaries, not decoded: a cut text
// is read once, and decoding a long one into runes cost more than the rest
// of its rendering. The result is valid UTF-8 whatever s is; valid says
// whether s is (runeCount tells it with n).
func cutText(s string, n, limit int, valid bool) string {
	head, tail := limit*2/3, limit/3
	marker := cutMarker(n - head - tail)
	first := strings.TrimRight(s[:runeOffset(s, head, valid)], " ")
	last := strings.TrimLeft(s[tailOffset(s, n, tail, valid):], " ")
	if !valid {
		first, last = ValidUTF8(first), ValidUTF8(last)
	}
	return first + marker + last
}

// runeOffset is the byte offset in s of its code point k, counted as
// RuneLen counts them (an invalid byte is one), or len(s) when s has no
// more than k. valid says whether s is valid UTF-8.
func runeOffset(s string, k int, valid bool) int {
	if !valid {
		i := 0
		for seen := 0; i < len(s) && seen < k; seen++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return i
	}
	seen := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			if seen == k {
				return i
			}
			seen++
		}
	}
	return len(s)
}

// tailOffset is runeOffset(s, n-k, valid) for s of n code points: where
// its last k code points start. In valid UTF-8 they are counted back from
// the end: counting forward read all of a long text byte by byte to keep
// its last third, more than cutting it cost otherwise.
func tailOffset(s string, n, k int, valid bool) int {
	if !valid || k <= 0 || k > n {
		return runeOffset(s, n-k, valid)
	}
	seen := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			if seen++; seen == k {
				return i
			}
		}
	}
	return 0
}

// ValidUTF8 is s with each invalid byte written as U+FFFD, as JSON
// encoding sends it, so a cut part keeps the code points RuneLen counted in
// it (strings.ToValidUTF8 would write one for a whole run).
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String()
}
