package compaction

import (
	"strconv"
	"strings"
)

// The summary's output budget: the tokens the summarizer is asked to write
// for a round that replaces input tokens, a fixed part for the headings and
// a share of the input, capped. It counts the model's text alone: the
// identifier ledger's block and the summary's tags are appended by code
// after the reply, so they cost no output tokens and the model is given no
// room for them. The share and the cap were chosen from the measurements in
// docs/compaction.md (the summary's output budget): output is priced several
// times an input token, and with the cap of 512 the simulated bill of the
// cache-aligned strategy fell by 12 to 19 % (against the whole summary's
// planned size as max tokens) while the fidelity corpus through the hook
// kept 96.8 % of its identifiers; the next cheaper cap, 384, kept 95.8 %.
// With the deep floor at 20.2 % of the window (it was 21 % then) the
// defaults keep 96.5 %, a cap of 448 95.8 % and one of 384 95.2 %.
const (
	summaryBudgetBase  = 64
	summaryBudgetShare = 6
	summaryBudgetMax   = 512
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
// tokens the summarizer is asked to write, and the max output tokens sent
// (that plus the headroom, at most SummarizationConfig.MaxRoundOutputTokens;
// when that bound is lower, the budget told shrinks with it).
func (c *SummarizationCompactor) outputBudget(input int) (budget, maxTokens int) {
	budget = textBudget(input)
	maxTokens = budget + budget/budgetHeadroomShare
	if c.maxOutput > 0 && maxTokens > c.maxOutput {
		maxTokens = c.maxOutput
		budget = max(maxTokens*budgetHeadroomShare/(budgetHeadroomShare+1), 1)
	}
	return budget, maxTokens
}

// textBudget is the default budget of the summarizer's text for input
// tokens replaced, before any bound: summaryBudgetBase plus
// 1/summaryBudgetShare of the input, at most summaryBudgetMax.
func textBudget(input int) int {
	return min(summaryBudgetBase+max(input, 0)/summaryBudgetShare, summaryBudgetMax)
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
