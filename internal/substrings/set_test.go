package substrings

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		strs []string
		text string
		want []bool
	}{
		{"none", nil, "anything", []bool{}},
		{"empty string", []string{""}, "", []bool{true}},
		{"nested and overlapping", []string{"he", "she", "his", "hers"}, "ushers", []bool{true, true, false, true}},
		{"found only through a fail link", []string{"abcd", "bc"}, "xabcx", []bool{false, true}},
		{"duplicates", []string{"a/b", "a/b", "c"}, "see a/b", []bool{true, true, false}},
		{"prefix of another", []string{"call_1", "call_12"}, "call_1 and call_13", []bool{true, false}},
		{"multi-byte", []string{"日本", "本語x"}, "日本語", []bool{true, false}},
		{"at the very end", []string{"end"}, "the end", []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := NewSet(tt.strs).Found(tt.text)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%q in %q: %v, want %v", tt.strs[i], tt.text, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestSetRandom checks the automaton against strings.Contains on
// random texts over a small alphabet, where suffixes overlap all the time.
func TestSetRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc"[r.IntN(3)]
		}
		return string(b)
	}
	for range 300 {
		strs := make([]string, r.IntN(12))
		for i := range strs {
			strs[i] = word(r.IntN(6))
		}
		text := word(r.IntN(40))
		got := NewSet(strs).Found(text)
		for i, s := range strs {
			if got[i] != strings.Contains(text, s) {
				t.Fatalf("%q in %q: got %v", s, text, got[i])
			}
		}
	}
}
