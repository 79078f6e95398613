package render

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
)

// The test notation (internal/notation).
var (
	rep = notation.Rep
)

// indentContinuation is writeIndented as a string.
func indentContinuation(s string) string {
	var b strings.Builder
	writeIndented(&b, s)
	return b.String()
}

// TestTailOffsetEqualsRuneOffset checks that counting a text's last code
// points back from its end finds where counting forward does, for every
// count from 0 to past the text's length, on ASCII, multi-byte and invalid
// UTF-8 (which is counted forward) texts.
func TestTailOffsetEqualsRuneOffset(t *testing.T) {
	t.Parallel()
	pool := []string{"a", " ", "\n", "é", "€", "😀", "\u0301", "ˆ", "\xff", "\xe2\x82", "z"}
	r := rand.New(rand.NewPCG(19, 13))
	for range 3000 {
		s := randomText(r, pool, 30)
		n := RuneLen(s)
		valid := utf8.ValidString(s)
		for k := 0; k <= n+1; k++ {
			if got, want := tailOffset(s, n, k, valid), runeOffset(s, n-k, valid); got != want {
				t.Fatalf("tailOffset(%q, %d, %d, %v) = %d, want %d", s, n, k, valid, got, want)
			}
		}
	}
}

// TestRuneCountReportsValidity checks runeCount's count and validity
// against the standard library's on random texts of ASCII, multi-byte,
// truncated and stray bytes, short and longer than its eight-byte steps.
func TestRuneCountReportsValidity(t *testing.T) {
	t.Parallel()
	pool := []string{"a", "abcdefgh", " ", "é", "€", "😀", "\xff", "\xe2\x82", "\x80", "\xc3", "0123456789abcdef"}
	r := rand.New(rand.NewPCG(23, 13))
	for range 5000 {
		s := randomText(r, pool, 40)
		n, valid := runeCount(s)
		if n != utf8.RuneCountInString(s) || valid != utf8.ValidString(s) {
			t.Fatalf("runeCount(%q) = %d, %v; want %d, %v", s, n, valid, utf8.RuneCountInString(s), utf8.ValidString(s))
		}
	}
}

// randomText joins fewer than most pieces drawn from pool.
func randomText(r *rand.Rand, pool []string, most int) string {
	var b strings.Builder
	for range r.IntN(most) {
		b.WriteString(pool[r.IntN(len(pool))])
	}
	return b.String()
}

// TestCutTextKeepsHeadAndTailCodePoints: cutText slices at code point
// boundaries, keeps limit*2/3 code points of the head and limit/3 of the
// tail, counts what it cut, and returns valid UTF-8 for any input.
func TestCutTextKeepsHeadAndTailCodePoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
	}{
		{"ASCII", rep("abcdefghij", 100)},
		{"Chinese", rep("日志记录错误信息", 100)},
		{"mixed", rep("a日b志c", 200)},
		{"invalid bytes", rep("ab\xffcd\xe6\x97", 150)},
		{"stray continuation bytes", rep("\xC3"+rep("\x80", 99), 20)},
	}
	const limit = 99
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := RuneLen(tc.s)
			got := cutText(tc.s, n, limit, utf8.ValidString(tc.s))
			if !utf8.ValidString(got) {
				t.Fatalf("not valid UTF-8: %q", got)
			}
			marker := fmt.Sprintf("\n[... %d characters cut to fit the summarizer's input ...]\n", n-limit*2/3-limit/3)
			head, tail, ok := strings.Cut(got, marker)
			if !ok {
				t.Fatalf("no marker %q in %q", marker, got)
			}
			if !utf8.ValidString(tc.s) {
				// Invalid bytes are replaced, each by U+FFFD: the parts keep
				// limit*2/3 and limit/3 code points all the same.
				if RuneLen(head) != limit*2/3 || RuneLen(tail) != limit/3 {
					t.Errorf("head of %d and tail of %d code points, want %d and %d", RuneLen(head), RuneLen(tail), limit*2/3, limit/3)
				}
				return
			}
			r := []rune(tc.s)
			if want := string(r[:limit*2/3]); head != want {
				t.Errorf("head %q, want %q", head, want)
			}
			if want := string(r[len(r)-limit/3:]); tail != want {
				t.Errorf("tail %q, want %q", tail, want)
			}
		})
	}
}

// TestCutNeverLengthensText: a text just over the cap is shown whole, since
// head, marker and tail would be longer than the text and lose its middle;
// one far enough over it is cut and comes out shorter. Before cutSaves, a
// text one code point over the cap came out about 60 code points longer.
func TestCutNeverLengthensText(t *testing.T) {
	t.Parallel()
	const limit = 256
	for _, tc := range []struct {
		name    string
		n       int
		wantCut bool
	}{
		{"at the cap", limit, false},
		{"one over", limit + 1, false},
		{"less than a marker over", limit + 40, false},
		{"far over", limit + 200, true},
		{"ten times", limit * 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &Cutter{Limit: limit}
			s := strings.Repeat("é", tc.n)
			got := c.Text(s)
			if n := RuneLen(got); n > tc.n {
				t.Errorf("a text of %d code points came out as %d", tc.n, n)
			}
			if cut := got != s; cut != tc.wantCut || c.Count() != map[bool]int{false: 0, true: 1}[tc.wantCut] {
				t.Errorf("cut = %v (count %d), want %v", cut, c.Count(), tc.wantCut)
			}
		})
	}
}

// TestRuneLenIsRuneCount: runeLen agrees with utf8.RuneCountInString on
// valid and invalid text, at every length around its 8- and 16-byte steps,
// and stays additive when texts are joined at an ASCII byte.
func TestRuneLenIsRuneCount(t *testing.T) {
	t.Parallel()
	pieces := []string{"", "a", "日", "\x80", "\xE6\x97", "\xff", "🙂", "Ж", "\xF0\x9F\x99"}
	for _, a := range pieces {
		for _, b := range pieces {
			for n := 0; n < 40; n++ {
				s := strings.Repeat("x", n) + a + strings.Repeat(b, n%5)
				if got, want := RuneLen(s), utf8.RuneCountInString(s); got != want {
					t.Fatalf("RuneLen(%q) = %d, want %d", s, got, want)
				}
				joined := s + "\n" + b + a
				if RuneLen(joined) != RuneLen(s)+1+RuneLen(b+a) {
					t.Fatalf("runeLen is not additive at an ASCII byte: %q", joined)
				}
			}
		}
	}
}

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
