// Package request builds the summarizer's requests: the summary's output
// budget and how a request tells it in words; the transcript request, its
// transcript cut to the round's input cap as it is rendered; the
// cache-aligned request, which re-sends the agent's own request as it was
// sent (where each message stands in it, the tools sent with it, the
// closing instruction naming the span to summarize, and the reading of that
// instruction back); and the output cap, sent as the summarizer has shown
// it takes it.
//
// Messages come in through Align, Settings.AlignedPrompt and Settings.Fit,
// the package's doors; the rest takes the positions, counts and text they
// hand over.
package request

import (
	"context"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// HeadroomShare: a round sends as max output tokens its budget plus a
// quarter, so a model that follows the length it is told, in words, is not
// cut mid-sentence for the odd word too many; one that ignores it is cut
// there.
const HeadroomShare = 4

// wordsPerBudget and budgetPerWords convert the budget into the words the
// request names: it asks for three words per five tokens of budget.
// Summaries are dense with paths, ids and Markdown, which the compaction's
// counters (four bytes to a token by default) count at well over one token
// per word.
const (
	wordsPerBudget = 3
	budgetPerWords = 5
	// wordsStep rounds the words told down to a round number.
	wordsStep = 10
)

// Placeholder, written in a custom instruction, is replaced in each round's
// request by the round's output budget in words (the value of
// compaction.BudgetWordsPlaceholder).
const Placeholder = "{budget_words}"

// Budget is a round's output budget and max output tokens for a summary
// budget of summary tokens: that plus the headroom, at most maxOutput when
// maxOutput is above 0; when that bound is lower, the budget told shrinks
// with it.
func Budget(summary, maxOutput int) (budget, maxTokens int) {
	budget = summary
	maxTokens = budget + budget/HeadroomShare
	if maxOutput > 0 && maxTokens > maxOutput {
		maxTokens = maxOutput
		budget = max(maxTokens*HeadroomShare/(HeadroomShare+1), 1)
	}
	return budget, maxTokens
}

// Words is the budget of budget tokens in words, rounded down to a multiple
// of ten and at least ten.
func Words(budget int) string {
	return strconv.Itoa(max(budget*wordsPerBudget/budgetPerWords/wordsStep*wordsStep, wordsStep))
}

// sentence is the sentence both request shapes end their user-side part
// with when the instruction is the default: how long the summary may be, in
// words, for budget tokens.
func sentence(budget int) string {
	return "Keep the summary under about " + Words(budget) + " words."
}

// fill is a custom instruction with Placeholder filled in for budget
// tokens.
func fill(instruction string, budget int) string {
	if !strings.Contains(instruction, Placeholder) {
		return instruction
	}
	return strings.ReplaceAll(instruction, Placeholder, Words(budget))
}

type toolsKey struct{}

// WithTools returns a ctx carrying a copy of the tool schemas the agent
// sends with its model calls (compaction.WithRequestTools).
func WithTools(ctx context.Context, tools []*schema.ToolInfo) context.Context {
	return context.WithValue(ctx, toolsKey{}, append([]*schema.ToolInfo(nil), tools...))
}

// Tools returns the tool schemas WithTools put into ctx, and whether there
// were any set (an agent without tools sets an empty list).
func Tools(ctx context.Context) ([]*schema.ToolInfo, bool) {
	tools, ok := ctx.Value(toolsKey{}).([]*schema.ToolInfo)
	return tools, ok
}

type sentKey struct{}

// WithSent returns a ctx carrying messages as the conversation the agent
// sent, unless ctx carries one already: the outermost caller saw the
// messages as they were sent. A Pipeline sets it before its stages run, so
// a cache-aligned summarization stage after a pruning stage still sends the
// agent's request as it was, not the pruned conversation the agent never
// sent and the provider never cached.
func WithSent(ctx context.Context, messages []*schema.Message) context.Context {
	if _, ok := ctx.Value(sentKey{}).([]*schema.Message); ok {
		return ctx
	}
	return context.WithValue(ctx, sentKey{}, messages)
}
