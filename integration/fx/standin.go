package compactfx

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// standInSummarizer is a STAND-IN for the offline extractive summarizer of
// issue 6 (summarizer/extractive), used until that package lands. It keeps
// the first line of every transcript entry, trimmed, under the five section
// headings the compactor's instruction asks for, and never returns more than
// a third of its input, so a summary always shrinks the conversation. It is
// deterministic and calls no network.
type standInSummarizer struct{}

var _ model.BaseChatModel = standInSummarizer{}

const (
	standInEntryRunes = 160
	standInName       = "offline stand-in summarizer (issue 6 pending)"
)

var standInPath = regexp.MustCompile(`[\w./-]+\.(?:go|md|ya?ml|json|txt|toml|sql|sh)\b`)

// Generate implements model.BaseChatModel.
func (standInSummarizer) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(input) == 0 {
		return nil, errors.New("stand-in summarizer: empty prompt")
	}
	transcript := input[len(input)-1].Content
	if i := strings.Index(transcript, "\n"); i >= 0 && strings.HasPrefix(transcript, "<") {
		transcript = transcript[i+1:]
	}
	transcript = strings.TrimSuffix(strings.TrimSpace(transcript), "</conversation_to_summarize>")

	var objective, work []string
	for line := range strings.SplitSeq(transcript, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "## ") || line == "(none)":
		case strings.HasPrefix(line, "user:") && len(objective) == 0:
			objective = append(objective, clip(line, standInEntryRunes))
		default:
			work = append(work, "- "+clip(line, standInEntryRunes))
		}
	}
	ids := uniq(standInPath.FindAllString(transcript, -1))

	var b strings.Builder
	b.WriteString("## Objective\n" + orNone(strings.Join(objective, "\n")))
	b.WriteString("\n\n## Decisions and constraints\n(none)")
	b.WriteString("\n\n## Work completed\n" + orNone(strings.Join(work, "\n")))
	b.WriteString("\n\n## Identifiers\n" + orNone(strings.Join(ids, ", ")))
	b.WriteString("\n\n## Unresolved\n(none)")
	out := clip(b.String(), max(len([]rune(transcript))/3, 1))
	return &schema.Message{Role: schema.Assistant, Content: out}, nil
}

// Stream implements model.BaseChatModel with the Generate reply as one chunk.
func (s standInSummarizer) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := s.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// GetType names the stand-in for Eino callbacks and reports.
func (standInSummarizer) GetType() string { return standInName }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 0)]) + "…"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func uniq(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
