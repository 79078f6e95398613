package compaction

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// groupTokens is the counter's size of one candidate group on its own, an
// estimate of what the group adds to the summarizer's transcript.
func (r *remainder) groupTokens(group []int) (int, error) {
	if r.additive != nil {
		r.init()
		var sum Cost
		for _, i := range group {
			sum = sum.Add(r.costs[i])
		}
		return r.additive.Tokens(sum, len(group)), nil
	}
	msgs := make([]*schema.Message, len(group))
	for n, i := range group {
		msgs[n] = r.messages[i]
	}
	n, err := r.counter.Count(r.ctx, msgs, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting a candidate group: %w", err)
	}
	return n, nil
}

// minCutRunes is the shortest a cut text may become: enough for a head, a
// tail and the marker between them.
const minCutRunes = 96

// fitTranscript returns the transcript to show the summarizer for indices,
// its size, and how many messages were cut to make it fit. Under
// MaxSummarizerInputTokens it cuts the longest texts of the planned messages
// (copies; the conversation is untouched), keeping head and tail and marking
// the cut, halving the allowance until the transcript fits or nothing more
// can be cut.
func (c *SummarizationCompactor) fitTranscript(ctx context.Context, messages []*schema.Message, indices []int, counter TokenCounter) (string, int, int, error) {
	var text string
	size := func(msgs []*schema.Message) (int, error) {
		text = Transcript(msgs, indices)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(text)}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size(messages)
	if err != nil || c.maxInput == 0 || n <= c.maxInput {
		return text, 0, n, err
	}
	longest := 0
	for _, i := range indices {
		for p := range contentParts(messages[i]) {
			longest = max(longest, runeLen(p.text))
		}
	}
	for limit := longest / 2; limit >= minCutRunes; limit /= 2 {
		shown := make([]*schema.Message, len(messages))
		copy(shown, messages)
		cut := 0
		for _, i := range indices {
			if m, ok := cutMessage(messages[i], limit); ok {
				shown[i] = m
				cut++
			}
		}
		if n, err = size(shown); err != nil {
			return "", 0, 0, err
		}
		if n <= c.maxInput || limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, 0, n, nil
}

// cutMessage returns a copy of m with every text longer than limit code
// points cut to its head and tail, or false when nothing needed cutting.
func cutMessage(m *schema.Message, limit int) (*schema.Message, bool) {
	if m == nil || IsStrategy(m, StrategySummarization) {
		return m, false
	}
	out := *m
	changed := false
	if runeLen(out.Content) > limit {
		out.Content, changed = cutText(out.Content, limit), true
	}
	if len(m.UserInputMultiContent) > 0 {
		parts := make([]schema.MessageInputPart, len(m.UserInputMultiContent))
		copy(parts, m.UserInputMultiContent)
		for i := range parts {
			if parts[i].Type == schema.ChatMessagePartTypeText && runeLen(parts[i].Text) > limit {
				parts[i].Text, changed = cutText(parts[i].Text, limit), true
			}
		}
		out.UserInputMultiContent = parts
	}
	if len(m.AssistantGenMultiContent) > 0 {
		parts := make([]schema.MessageOutputPart, len(m.AssistantGenMultiContent))
		copy(parts, m.AssistantGenMultiContent)
		for i := range parts {
			if parts[i].Type == schema.ChatMessagePartTypeText && runeLen(parts[i].Text) > limit {
				parts[i].Text, changed = cutText(parts[i].Text, limit), true
			}
		}
		out.AssistantGenMultiContent = parts
	}
	return &out, changed
}

// cutText keeps the first and last parts of s, about limit code points in
// all, and says how much is missing between them.
func cutText(s string, limit int) string {
	r := []rune(s)
	head, tail := limit*2/3, limit/3
	marker := fmt.Sprintf("\n[... %d characters cut to fit the summarizer's input ...]\n", len(r)-head-tail)
	return strings.TrimRight(string(r[:head]), " ") + marker + strings.TrimLeft(string(r[len(r)-tail:]), " ")
}
