package compaction

import (
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// budgetHeadroomShare: a round sends as max output tokens its budget plus
// a quarter, so a model that follows the length it is told, in words, is
// not cut mid-sentence for the odd word too many; one that ignores it is
// cut there.
const budgetHeadroomShare = 4

// wordsPerBudget and budgetPerWords convert the budget into the words the request names:
// it asks for three words per five tokens of budget. Summaries are dense
// with paths, ids and Markdown, which the compaction's counters (four bytes
// to a token by default) count at well over one token per word.
const (
	wordsPerBudget = 3
	budgetPerWords = 5
	// wordsStep rounds the words told down to a round number.
	wordsStep = 10
)

// outputBudget is the round's output budget for input tokens replaced: the
// tokens the summarizer is asked to write (cost.SummaryBudget), and the max output tokens sent
// (that plus the headroom, at most SummarizationConfig.MaxRoundOutputTokens;
// when that bound is lower, the budget told shrinks with it).
func (c *SummarizationCompactor) outputBudget(input int) (budget, maxTokens int) {
	budget = cost.SummaryBudget(input)
	maxTokens = budget + budget/budgetHeadroomShare
	if c.maxOutput > 0 && maxTokens > c.maxOutput {
		maxTokens = c.maxOutput
		budget = max(maxTokens*budgetHeadroomShare/(budgetHeadroomShare+1), 1)
	}
	return budget, maxTokens
}

// BudgetWordsPlaceholder, written in a custom
// SummarizationConfig.SummaryInstruction, is replaced in each round's request
// by the round's output budget in words (a number, e.g. "120"), the number
// the default instruction's closing sentence names ("Keep the summary under
// about 120 words."). A custom instruction gets no such sentence: it is sent
// as written, with the placeholder, if any, filled in.
const BudgetWordsPlaceholder = "{budget_words}"

// budgetWords is the budget of budget tokens in words, rounded down to
// wordsStep and at least wordsStep.
func budgetWords(budget int) string {
	return strconv.Itoa(max(budget*wordsPerBudget/budgetPerWords/wordsStep*wordsStep, wordsStep))
}

// budgetSentence is the sentence both request shapes end their user-side
// part with when the instruction is the default: how long the summary may
// be, in words, for budget tokens.
func budgetSentence(budget int) string {
	return "Keep the summary under about " + budgetWords(budget) + " words."
}

// customInstruction reports whether the compactor's instruction is a custom
// one, which gets no budget sentence.
func (c *SummarizationCompactor) customInstruction() bool {
	return c.instruction != DefaultSummaryInstruction
}

// instructionFor is a custom instruction with BudgetWordsPlaceholder filled
// in for budget tokens.
func (c *SummarizationCompactor) instructionFor(budget int) string {
	if !strings.Contains(c.instruction, BudgetWordsPlaceholder) {
		return c.instruction
	}
	return strings.ReplaceAll(c.instruction, BudgetWordsPlaceholder, budgetWords(budget))
}

// transcriptRequest is the transcript request for a wrapped transcript and
// the round's budget. With the default instruction the summary's length
// (budgetSentence) follows the transcript's closing tag, in the user
// message, outside the data block. A custom instruction is the system
// prompt as written, BudgetWordsPlaceholder filled in, and the wrapped
// transcript alone the user message.
func (c *SummarizationCompactor) transcriptRequest(wrapped string, budget int) []*schema.Message {
	if c.customInstruction() {
		return transcript.PromptWrapped(c.instructionFor(budget), wrapped)
	}
	return transcript.PromptWrapped(c.instruction, wrapped+"\n\n"+budgetSentence(budget))
}
