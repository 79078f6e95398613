package compaction

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
)

// TestCounterInvalidUTF8CountsWhatIsSent: a tool that returns binary data as
// a string reaches the provider JSON-encoded, each invalid byte a U+FFFD.
// The default counter must count such a text as the provider receives it;
// counting continuation bytes alone made 100,000 stray ones almost nothing,
// so a call far above the window went out as a small one (issue 12 review).
func TestCounterInvalidUTF8CountsWhatIsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct{ name, text string }{
		{"stray continuation bytes", strings.Repeat("\xC3"+strings.Repeat("\x80", 999), 100)},
		{"overlong runs after a lead byte", strings.Repeat("\xF0"+strings.Repeat("\xBF", 99), 1000)},
		{"lone lead bytes", strings.Repeat("a\xE6", 5000)},
		{"invalid bytes among Chinese text", strings.Repeat("日志\xff错误", 2000)},
		{"valid mixed text", strings.Repeat("a日b志c🙂", 3000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := result("bin", tt.text)
			wire, err := json.Marshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			var sent schema.Message
			if err := json.Unmarshal(wire, &sent); err != nil {
				t.Fatal(err)
			}
			counter := DefaultCounter()
			got, err := counter.Count(ctx, []*schema.Message{raw}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := counter.Count(ctx, []*schema.Message{&sent}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("a %d-byte text counts %d tokens; as the provider receives it, %d", len(tt.text), got, want)
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
				if got, want := runeLen(s), utf8.RuneCountInString(s); got != want {
					t.Fatalf("runeLen(%q) = %d, want %d", s, got, want)
				}
				joined := s + "\n" + b + a
				if runeLen(joined) != runeLen(s)+1+runeLen(b+a) {
					t.Fatalf("runeLen is not additive at an ASCII byte: %q", joined)
				}
			}
		}
	}
}
