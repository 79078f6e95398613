package extractive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// ErrNothingToSummarize means the prompt held fewer than two code points of
// transcript: no shorter text can summarize it.
var ErrNothingToSummarize = errors.New("extractive: nothing to summarize")

// Summarizer is a model.BaseChatModel that writes summaries by extraction.
// It is stateless after New and safe for concurrent use.
type Summarizer struct {
	cfg Config
}

var _ model.BaseChatModel = (*Summarizer)(nil)

// New returns a Summarizer. A nil cfg means all defaults; a field out of
// range is an error naming it.
func New(cfg *Config) (*Summarizer, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return &Summarizer{cfg: c}, nil
}

// Generate summarizes the transcript in the user messages of input (system
// messages, the instruction, are ignored; see Summarize). A cache-aligned
// request (compaction.SummarizationConfig.CacheAligned), the agent's own
// request followed by an instruction naming the messages to summarize, is
// read as compaction.AlignedSpan reads it: the named messages are summarized
// as a transcript of them, and neither the instruction nor the rest of the
// agent's request enters the summary. The reply is an
// assistant message with the summary and a ResponseMeta whose Usage counts a
// token per four code points, rounded up: prompt tokens for the text of all
// of input, completion tokens for the summary. Options are accepted and
// ignored.
func (s *Summarizer) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("extractive: %w", err)
	}
	prompt := promptText(input)
	if span, ok := compaction.AlignedSpan(input); ok {
		// The compactor's instruction is not the user's; the request
		// before it holds the span, and more that stays in the conversation.
		prompt = compaction.Transcript(input[:len(input)-1], span)
	}
	text, err := s.Summarize(ctx, prompt)
	if err != nil {
		return nil, err
	}
	sent := 0
	for _, m := range input {
		if m != nil {
			sent += runeLen(messageText(m))
		}
	}
	pt, ct := tokens(sent), tokens(runeLen(text))
	msg := schema.AssistantMessage(text, nil)
	msg.ResponseMeta = &schema.ResponseMeta{
		FinishReason: "stop",
		Usage:        &schema.TokenUsage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct},
	}
	return msg, nil
}

// Stream is Generate delivered as a stream of one chunk.
func (s *Summarizer) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := s.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// GetType names the component for Eino callbacks and reports.
func (s *Summarizer) GetType() string { return "Extractive" }

// Summarize summarizes prompt, the text of the compactor's user message: the
// transcript between the first "<conversation_to_summarize>" and the last
// "</conversation_to_summarize>" (a missing tag means the start or end of
// prompt). The summary is always shorter than that transcript in code points;
// when even the five bare headings are not, it is the transcript on one line,
// cut to fit.
func (s *Summarizer) Summarize(ctx context.Context, prompt string) (string, error) {
	t := transcript(prompt)
	if n := runeLen(strings.TrimSpace(t)); n < 2 {
		return "", errTooShort(n)
	}
	out, err := s.summarize(ctx, t)
	if err != nil {
		return "", fmt.Errorf("extractive: %w", err)
	}
	return out, nil
}

func tokens(runes int) int { return (runes + 3) / 4 }

// errTooShort is returned for a transcript with fewer than two code points
// of text: nothing shorter can say anything about it.
func errTooShort(n int) error {
	return fmt.Errorf("%w (%d code points)", ErrNothingToSummarize, n)
}
