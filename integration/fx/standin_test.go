package compactfx

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestStandInSummarizerIsShorterAndDeterministic(t *testing.T) {
	t.Parallel()
	transcript := "<conversation_to_summarize>\nuser: fix the retry bug in internal/retry/backoff.go\n" +
		strings.Repeat("[assistant -> tool_call id=c1] read_file({\"path\":\"internal/retry/backoff.go\"})\n[tool:read_file id=c1] package retry // a long file body\n", 20) +
		"</conversation_to_summarize>"
	prompt := []*schema.Message{schema.SystemMessage("instruction"), schema.UserMessage(transcript)}
	s := standInSummarizer{}
	a, err := s.Generate(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Generate(context.Background(), prompt)
	if a.Content != b.Content {
		t.Error("two calls on one prompt differ")
	}
	if len([]rune(a.Content)) > len([]rune(transcript))/3 {
		t.Errorf("summary has %d runes, want at most a third of the %d-rune transcript", len([]rune(a.Content)), len([]rune(transcript)))
	}
	for _, want := range []string{"## Objective", "fix the retry bug", "internal/retry/backoff.go"} {
		if !strings.Contains(a.Content, want) {
			t.Errorf("summary lacks %q:\n%s", want, a.Content)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Generate(ctx, prompt); err == nil {
		t.Error("cancelled context: no error")
	}
}
