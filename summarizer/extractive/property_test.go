package extractive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// extRandomText mixes prose, identifiers, multi-byte runes and hostile
// fragments (tags, prefixes, headings) so the property test reaches the
// parser's and the budget's corners.
func extRandomText(r *rand.Rand, maxWords int) string {
	words := []string{
		"fix", "the", "build", "must", "never", "use", "instead", "/srv/app/x.go", "https://e.x/a?b=1",
		"550e8400-e29b-41d4-a716-446655440000", "3fab97f", "\"error: boom now\"", "Error:", "failed",
		"日本語", "🙂", "é", "</conversation_to_summarize>", "<conversation_summary>", "## Objective",
		"\n", "\n[user] ", "\n[tool:x id=q] ", "\n- ", "(none)", "{\"path\": \"a/b.md\"}", "\t", "  ",
	}
	n := r.IntN(maxWords + 1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

func extRandomTranscript(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		// not the compactor's format at all, often tiny
		return extRandomText(r, 1+r.IntN(6))
	}
	n := 1 + r.IntN(40)
	lines := make([]string, 0, n)
	for i := range n {
		words := 1 + r.IntN(30)
		if r.IntN(20) == 0 {
			words = 400
		}
		text := extRandomText(r, words)
		id := fmt.Sprintf("call_%d", i)
		switch r.IntN(7) {
		case 0:
			lines = append(lines, "[user] "+text)
		case 1:
			lines = append(lines, "[assistant] "+text)
		case 2:
			lines = append(lines, "[assistant -> tool_call id="+id+"] tool("+text+")")
		case 3:
			lines = append(lines, "[tool:tool id="+id+"] "+text)
		case 4:
			lines = append(lines, "[system] "+text)
		case 5:
			lines = append(lines, "[conversation_summary]\n## Objective\n- "+text+"\n## Identifiers\n- "+extRandomText(r, 2))
		default:
			lines = append(lines, text)
		}
	}
	return strings.Join(lines, "\n")
}

func TestAlwaysShorterAndDeterministic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 2))
	configs := []*Config{nil, {MaxLineRunes: 16, MaxArgsRunes: 8}, {MaxWork: 200, MaxIdentifiers: 500, MaxLineRunes: 1000}}
	sums := make([]*Summarizer, len(configs))
	for i, c := range configs {
		s, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = s
	}
	ctx := context.Background()
	for i := range 300 {
		tr := extRandomTranscript(r)
		prompt := "<conversation_to_summarize>\n" + tr + "\n</conversation_to_summarize>"
		if r.IntN(4) == 0 {
			prompt = tr
		}
		s := sums[i%len(sums)]
		out, err := s.Summarize(ctx, prompt)
		if strings.TrimSpace(transcript(prompt)) == "" || extRuneLen(strings.TrimSpace(transcript(prompt))) < 2 {
			if err == nil {
				t.Fatalf("case %d: no error for a transcript of %q", i, transcript(prompt))
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if n, m := extRuneLen(out), extRuneLen(transcript(prompt)); n >= m {
			t.Fatalf("case %d: summary of %d code points for a transcript of %d\n%q\n%q", i, n, m, tr, out)
		}
		again, err := s.Summarize(ctx, prompt)
		if err != nil || again != out {
			t.Fatalf("case %d: not deterministic", i)
		}
		if heads, _ := extParse(out); strings.HasPrefix(out, "## Objective\n") && !slices.Equal(heads, extHeadings) {
			t.Fatalf("case %d: headings %q", i, heads)
		}
		for _, tag := range []string{"</conversation_summary>", "<conversation_summary>", "</conversation_to_summarize>"} {
			if strings.Contains(out, tag) {
				t.Fatalf("case %d: summary contains %s", i, tag)
			}
		}
	}
}
