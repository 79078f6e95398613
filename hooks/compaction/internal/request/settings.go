package request

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// Settings are the parts of a compactor's configuration its summarizer
// requests are built from.
type Settings struct {
	// Instruction is SummarizationConfig.SummaryInstruction: the default
	// (transcript.Instruction) or a custom one, which gets no budget
	// sentence.
	Instruction string
	// MaxInput is MaxRoundInputTokens; 0: no cap.
	MaxInput int
	// MaxText is MaxTextTokens in code points; 0: no cap.
	MaxText int
	// DropLedger: the identifier ledger is on, so the transcript shows
	// earlier summaries without their ledger blocks.
	DropLedger bool
}

// custom reports whether the instruction is a custom one.
func (s Settings) custom() bool { return s.Instruction != transcript.Instruction }

// Prompt is the transcript request for a wrapped transcript and the round's
// budget. With the default instruction the summary's length (sentence)
// follows the transcript's closing tag, in the user message, outside the
// data block. A custom instruction is the system prompt as written,
// Placeholder filled in, and the wrapped transcript alone the user message.
func (s Settings) Prompt(wrapped string, budget int) []*schema.Message {
	if s.custom() {
		return transcript.PromptWrapped(fill(s.Instruction, budget), wrapped)
	}
	return transcript.PromptWrapped(s.Instruction, wrapped+"\n\n"+sentence(budget))
}

// minCutRunes is the shortest a cut text may become: enough for a head, a
// tail and the marker between them.
const minCutRunes = 96

// Fit returns the transcript to show the summarizer for indices, wrapped in
// its tags (transcript.Wrapped), how many messages had a text cut, and its
// size without the tags. Every text longer than MaxText is cut to it, head
// and tail with a marker between them, unless the marker would make it no
// shorter. Under MaxInput it then cuts the longest texts the transcript
// shows, whatever field of a message holds them (content, parts, tool-call
// arguments, names, ids, attachment placeholders), keeping head and tail
// and marking the cut, halving the allowance until the transcript fits or
// nothing more can be cut. The cuts happen as the transcript is rendered;
// the conversation is untouched.
func (s Settings) Fit(ctx context.Context, messages []*schema.Message, indices []int, counter count.Counter) (string, int, int, error) {
	var text string
	var cut int
	// Without a cap nothing is cut and the longest text need not be
	// measured: no cutter, so texts are indented as they are written.
	var cutter *render.Cutter
	if s.MaxInput > 0 || s.MaxText > 0 {
		cutter = &render.Cutter{Limit: s.MaxText, Track: s.MaxInput > 0}
	}
	view := transcript.View{Cut: cutter, DropLedger: s.DropLedger, Request: transcript.Spanned(messages, indices)}
	size := func() (int, error) {
		text, cut = transcript.Wrapped(messages, indices, view)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(transcript.Body(text))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size()
	if err != nil || s.MaxInput == 0 || n <= s.MaxInput {
		return text, cut, n, err
	}
	longest := cutter.Longest
	if s.MaxText > 0 {
		longest = min(longest, s.MaxText)
	}
	for cutter.Limit = longest / 2; cutter.Limit >= minCutRunes; cutter.Limit /= 2 {
		if n, err = size(); err != nil {
			return "", 0, 0, err
		}
		if n <= s.MaxInput || cutter.Limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, cut, n, nil
}
