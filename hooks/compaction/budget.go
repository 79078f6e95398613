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
// wrapped in its tags (wrappedTranscript), its size without them, and how many messages were cut to make it fit. Under
// MaxSummarizerInputTokens it cuts the longest texts the transcript shows,
// whatever field of a message holds them (content, parts, tool-call
// arguments, names, ids, attachment placeholders), keeping head and tail and
// marking the cut, halving the allowance until the transcript fits or nothing
// more can be cut. The cuts happen as the transcript is rendered; the
// conversation is untouched.
func (c *SummarizationCompactor) fitTranscript(ctx context.Context, messages []*schema.Message, indices []int, counter TokenCounter) (string, int, int, error) {
	var text string
	var cut int
	// Without a cap nothing is cut and the longest text need not be
	// measured: no cutter, so texts are indented as they are written.
	var cutter *textCutter
	if c.maxInput > 0 {
		cutter = &textCutter{}
	}
	view := transcriptView{cut: cutter, dropLedger: !c.ledger.off, request: spannedRequest(messages, indices)}
	size := func() (int, error) {
		text, cut = wrappedTranscript(messages, indices, view)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(transcriptBody(text))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size()
	if err != nil || c.maxInput == 0 || n <= c.maxInput {
		return text, 0, n, err
	}
	for cutter.limit = cutter.longest / 2; cutter.limit >= minCutRunes; cutter.limit /= 2 {
		if n, err = size(); err != nil {
			return "", 0, 0, err
		}
		if n <= c.maxInput || cutter.limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, 0, n, nil
}

// textCutter cuts the texts a transcript shows to at most limit code points
// (0: no cut) and notes the longest it saw, so the first, uncut rendering
// tells fitTranscript where to start cutting.
type textCutter struct {
	limit   int
	longest int
	cuts    int
}

func (c *textCutter) text(s string) string {
	n := runeLen(s)
	c.longest = max(c.longest, n)
	if c.limit > 0 && n > c.limit {
		c.cuts++
		return cutText(s, c.limit)
	}
	return s
}

// count is how many texts c has cut; 0 for a nil c.
func (c *textCutter) count() int {
	if c == nil {
		return 0
	}
	return c.cuts
}

// cutText keeps the first and last parts of s, about limit code points in
// all, and says how much is missing between them.
func cutText(s string, limit int) string {
	r := []rune(s)
	head, tail := limit*2/3, limit/3
	marker := fmt.Sprintf("\n[... %d characters cut to fit the summarizer's input ...]\n", len(r)-head-tail)
	return strings.TrimRight(string(r[:head]), " ") + marker + strings.TrimLeft(string(r[len(r)-tail:]), " ")
}
