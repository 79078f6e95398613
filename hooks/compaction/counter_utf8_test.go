package compaction

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
