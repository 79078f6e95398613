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

// TestFoundInMatchesContains checks FoundIn against strings.Contains on
// random texts over a small alphabet (where pieces collide and most strings
// pass the table), with strings long and short, and with enough candidates
// that both the direct search and the automaton answer.
func TestFoundInMatchesContains(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for _, alphabet := range []string{"ab", "abc", "abcdefghij/._-0123456789"} {
		for range 300 {
			text := word(alphabet, r.IntN(2000))
			strs := make([]string, r.IntN(400))
			for i := range strs {
				if len(text) > 0 && r.IntN(3) == 0 {
					a := r.IntN(len(text))
					strs[i] = text[a : a+r.IntN(min(len(text)-a, 40)+1)]
				} else {
					strs[i] = word(alphabet, r.IntN(24))
				}
			}
			got := FoundIn(text, strs)
			for i, s := range strs {
				if got[i] != strings.Contains(text, s) {
					t.Fatalf("%q in %q: got %v", s, text, got[i])
				}
			}
		}
	}
}
