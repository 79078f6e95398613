package compaction

import (
	"context"

	"github.com/cloudwego/eino/schema"

	tokencount "github.com/einocompact/einocompact/hooks/compaction/internal/count"
	// Imported under another name: the compaction's code names its plans plan.
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// The tiers a summarization plan can come from, in the order they are tried.
const (
	// TierHistoricalTurns replaces the oldest whole turns before the current task.
	TierHistoricalTurns = "historical_turns"
	// TierHistoricalSummaries folds two or more summaries before the current task into one.
	TierHistoricalSummaries = "historical_summaries"
	// TierCurrentTaskSteps replaces the oldest agent steps of the current task,
	// sparing the newest MinKeepSteps. Once the compactor has seen its
	// summarizer's replies, or always when ApproximateSummaryTokens is
	// unset, a round of this tier may also take the history before the
	// current request, when the history alone cannot reach the target; its
	// summary then goes after the request.
	TierCurrentTaskSteps = "current_task_steps"
	// TierCurrentTaskSummaries folds two or more summaries inside the current task into one.
	TierCurrentTaskSummaries = "current_task_summaries"
)

// Plan is one round's choice of messages to replace with a single summary.
// The zero Plan (no Tier, no Indices) means nothing more can be summarized.
type Plan struct {
	// Tier names the rule that chose the messages (one of the Tier constants).
	Tier string
	// Indices are the chosen positions in the planned conversation, ascending.
	// They need not be contiguous: messages that belong to no group (notes of
	// other compactors, orphan tool results, mid-task system messages) stay.
	Indices []int
}

// Empty reports whether the plan selects nothing.
func (p Plan) Empty() bool { return len(p.Indices) == 0 }

// Plan chooses what the next summarization round would replace to bring
// messages down to target tokens as counted by counter (nil: DefaultCounter).
// It calls no model. The four tiers are tried in order and the first that
// applies wins:
//
//  1. historical turns: the fewest oldest turns before the current task, a
//     turn's later steps counted one by one so only the older part of the
//     last turn needed is taken (the reference takes it whole), then steps
//     left after a summary before the first turn, with that summary; once
//     replies are seen, the history's summaries too, and when even that
//     cannot reach the target, the history with the task's oldest steps in
//     one round (reported as TierCurrentTaskSteps);
//  2. historical summaries: at least two of this compactor's summaries before
//     the current task, folded into one;
//  3. current-task steps: the fewest oldest agent steps, never one of the
//     newest MinKeepSteps;
//  4. current-task summaries: at least two summaries inside the current task.
//
// Once the planner plans ahead (see TierCurrentTaskSteps), the newest steps
// that together hold a third of the target are spared besides the newest
// MinKeepSteps, as long as the round still brings the conversation within
// about 8 % above target; when it cannot, the round is planned without them.
//
// Within a tier, groups are taken oldest first until the rest of the
// conversation plus the expected summary fits target, or all of them. A
// tier whose groups together are no larger than the summary expected for
// them is skipped: replacing them could not make the conversation smaller.
// The expected summary is ApproximateSummaryTokens until the compactor has
// seen its summarizer's replies (see SummarizationConfig).
// The counter is asked for O(n) work per call: an AdditiveCounter measures
// each message once; any other counter recounts the remainder per candidate.
func (c *SummarizationCompactor) Plan(ctx context.Context, messages []*schema.Message, target int, counter TokenCounter) (Plan, error) {
	if counter == nil {
		counter = DefaultCounter()
	}
	p, err := c.planner.Plan(ctx, messages, max(target, 0), planCounter(counter), nil, false)
	return Plan(p), err
}

// planCounter is counter as the planner takes it: the default counter's
// *count.Approx unwrapped, so the planner reads every message's cost from the
// cache Compact's count filled (the planner cannot see the unexported methods
// of ApproximateTokenCounter); any other counter as it is.
func planCounter(counter TokenCounter) tokencount.Counter {
	if a, ok := counter.(*ApproximateTokenCounter); ok {
		return a.approx()
	}
	return counter
}

// planConfig is the planner's part of the compactor's configuration: the
// ledger's cap and the output budget reach it as functions, so that plan
// imports neither.
func (c *SummarizationCompactor) planConfig() planning.Config {
	cfg := planning.Config{
		MinKeep:  c.minKeep,
		Approx:   c.approx,
		MaxInput: c.maxInput,
		OutputBudget: func(input int) int {
			budget, _ := c.outputBudget(input)
			return budget
		},
	}
	if !c.ledger.Off() {
		cfg.LedgerCap = func(target int) int { return c.ledger.CapFor(target) }
	}
	return cfg
}
