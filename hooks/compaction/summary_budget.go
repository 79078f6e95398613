package compaction

import (
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// outputBudget is the round's output budget for input tokens replaced: the
// tokens the summarizer is asked to write (cost.SummaryBudget), and the max output tokens sent
// (that plus the headroom, at most SummarizationConfig.MaxRoundOutputTokens;
// when that bound is lower, the budget told shrinks with it).
func (c *SummarizationCompactor) outputBudget(input int) (budget, maxTokens int) {
	return request.Budget(cost.SummaryBudget(input), c.maxOutput)
}

// BudgetWordsPlaceholder, written in a custom
// SummarizationConfig.SummaryInstruction, is replaced in each round's request
// by the round's output budget in words (a number, e.g. "120"), the number
// the default instruction's closing sentence names ("Keep the summary under
// about 120 words."). A custom instruction gets no such sentence: it is sent
// as written, with the placeholder, if any, filled in.
const BudgetWordsPlaceholder = request.Placeholder

// customInstruction reports whether the compactor's instruction is a custom
// one, which gets no budget sentence.
func (c *SummarizationCompactor) customInstruction() bool {
	return c.instruction != DefaultSummaryInstruction
}

// instructionFor is a custom instruction with BudgetWordsPlaceholder filled
// in for budget tokens.
func (c *SummarizationCompactor) instructionFor(budget int) string {
	return request.Fill(c.instruction, budget)
}

// transcriptRequest is the transcript request for a wrapped transcript and
// the round's budget. With the default instruction the summary's length
// (request.Sentence) follows the transcript's closing tag, in the user
// message, outside the data block. A custom instruction is the system
// prompt as written, BudgetWordsPlaceholder filled in, and the wrapped
// transcript alone the user message.
func (c *SummarizationCompactor) transcriptRequest(wrapped string, budget int) []*schema.Message {
	if c.customInstruction() {
		return transcript.PromptWrapped(c.instructionFor(budget), wrapped)
	}
	return transcript.PromptWrapped(c.instruction, wrapped+"\n\n"+request.Sentence(budget))
}
