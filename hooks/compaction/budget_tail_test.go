package compaction

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

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
		n := runeLen(s)
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
