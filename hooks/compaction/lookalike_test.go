package compaction

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodedIndent is writeIndented as the rule reads: s decoded rune by rune
// (an invalid byte is one U+FFFD), a line starting after each of "\n",
// "\r", "\v", "\f", U+0085, U+2028, U+2029.
func decodedIndent(s string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			if startsLikeEntry(s[i:]) {
				b.WriteString(s[start:i])
				b.WriteString(continuationIndent)
				start = i
			}
		}
	}
	b.WriteString(s[start:])
	return b.String()
}

// TestWriteIndentedFindsEveryBreak: writeIndented searches for each kind
// of line break byte by byte rather than decoding the text; it must find
// the lines a reader decodes, whatever mix of breaks, invalid bytes and
// look-alike starts a text holds.
func TestWriteIndentedFindsEveryBreak(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "[", "［", "\u200b", "\ufeff", "\n", "\r", "\r\n", "\u0085", "\u2028", "\u2029", "\v", "\f", "\u034f", "\ufe0f", "\u3164", "【", "⟦",
		"\xe2", "\xe2\x80", "\xc2", "\x85", "\xa8", "\xef\xbc", "é", "—", "请"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := indentContinuation(s), decodedIndent(s); got != want {
			t.Fatalf("writeIndented(%q) = %q, want %q", s, got, want)
		}
	}
}
