package extractive

import (
	"context"
	"strings"
	"testing"
)

// extWrap builds the compactor's user message text around transcript lines.
func extWrap(lines ...string) string {
	return "<conversation_to_summarize>\n" + strings.Join(lines, "\n") + "\n</conversation_to_summarize>"
}

// extParse splits a summary into its headings, in order, and the lines under
// each heading (blank lines dropped, "- " kept).
func extParse(out string) (headings []string, body map[string][]string) {
	body = map[string][]string{}
	cur := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "## ") {
			cur = l
			headings = append(headings, l)
			continue
		}
		if l != "" {
			body[cur] = append(body[cur], l)
		}
	}
	return headings, body
}

// extSummarize runs a default Summarizer and fails the test on error.
func extSummarize(t *testing.T, cfg *Config, prompt string) string {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Summarize(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var extHeadings = []string{"## Objective", "## Decisions and constraints", "## Work completed", "## Identifiers", "## Unresolved"}

func extRuneLen(s string) int { return len([]rune(s)) }
