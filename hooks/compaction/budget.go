package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// minCutRunes is the shortest a cut text may become: enough for a head, a
// tail and the marker between them.
const minCutRunes = 96

// fitTranscript returns the transcript to show the summarizer for indices,
// wrapped in its tags (transcript.Wrapped), its size without them, and how
// many messages had a text cut. Every text longer than MaxTextTokens is cut
// to it, head and tail with a marker between them, unless the marker would
// make it no shorter. Under MaxRoundInputTokens it then cuts the longest texts the
// transcript shows, whatever field of a message holds them (content, parts,
// tool-call arguments, names, ids, attachment placeholders), keeping head
// and tail and marking the cut, halving the allowance until the transcript
// fits or nothing more can be cut. The cuts happen as the transcript is
// rendered; the conversation is untouched.
func (c *SummarizationCompactor) fitTranscript(ctx context.Context, messages []*schema.Message, indices []int, counter TokenCounter) (string, int, int, error) {
	var text string
	var cut int
	// Without a cap nothing is cut and the longest text need not be
	// measured: no cutter, so texts are indented as they are written.
	var cutter *render.Cutter
	if c.maxInput > 0 || c.maxText > 0 {
		cutter = &render.Cutter{Limit: c.maxText, Track: c.maxInput > 0}
	}
	view := transcript.View{Cut: cutter, DropLedger: !c.ledger.Off(), Request: transcript.Spanned(messages, indices)}
	size := func() (int, error) {
		text, cut = transcript.Wrapped(messages, indices, view)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(transcript.Body(text))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size()
	if err != nil || c.maxInput == 0 || n <= c.maxInput {
		return text, cut, n, err
	}
	longest := cutter.Longest
	if c.maxText > 0 {
		longest = min(longest, c.maxText)
	}
	for cutter.Limit = longest / 2; cutter.Limit >= minCutRunes; cutter.Limit /= 2 {
		if n, err = size(); err != nil {
			return "", 0, 0, err
		}
		if n <= c.maxInput || cutter.Limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, cut, n, nil
}
