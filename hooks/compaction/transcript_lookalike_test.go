package compaction

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// TestCutTranscriptStartsNoEntryLine: fzCheckHeaders checks the transcript
// without cuts; a cut writes a marker line of its own and can land right
// after a line break, before a look-alike or inside a multi-byte sequence.
// Over random texts of line breaks of every kind, invisible format
// characters, brackets and stray bytes, each cut small enough to cut most
// texts, the lines that read as a transcript line are still only the
// renderer's.
func TestCutTranscriptStartsNoEntryLine(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "bb ", " ", "[", "［", "\u200b", "\ufeff", "\n", "\r", "\r\n", "\u0085", "\u2028", "\u2029",
		"\v", "\f", "\u034f", "\ufe0f", "\u3164", "【", "⟦",
		"\xe2", "\xe2\x80", "\xc2", "\x85", "\xa8", "\xef\xbc", "é", "—", "[user] x", "\n[", strings.Repeat("x", 40)}
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	parts := func() []schema.MessageInputPart {
		out := make([]schema.MessageInputPart, 1+rng.IntN(4))
		for i := range out {
			out[i] = schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: gen()}
		}
		return out
	}
	cuts := 0
	for range 5_000 {
		var m *schema.Message
		want := 1
		switch rng.IntN(3) {
		case 0:
			m = &schema.Message{Role: schema.Tool, ToolName: gen(), ToolCallID: gen(), UserInputMultiContent: parts()}
		case 1:
			m = &schema.Message{Role: schema.User, UserInputMultiContent: parts()}
		default:
			m = &schema.Message{Role: schema.Assistant, Content: gen(),
				ToolCalls: []schema.ToolCall{{ID: gen(), Function: schema.FunctionCall{Name: gen(), Arguments: gen()}}}}
			if m.Content != "" {
				want = 2
			}
		}
		limit := 8 + rng.IntN(80)
		got, cut := transcript.Wrapped([]*schema.Message{m}, []int{0}, transcript.View{Cut: &render.Cutter{Limit: limit}, Request: -1})
		cuts += cut
		lines := 0
		for _, line := range fzLines(transcript.Body(got)) {
			if fzLooksLikeEntry(line) {
				lines++
			}
		}
		if lines != want {
			t.Fatalf("cut to %d: %d lines look like a transcript line, the renderer starts %d:\n%q", limit, lines, want, got)
		}
		fzCheckHeaders(t, []*schema.Message{m, summaryOf(gen())})
	}
	if cuts < 1_000 {
		t.Fatalf("only %d of 5,000 messages had a text cut; the test no longer exercises cuts", cuts)
	}
}
