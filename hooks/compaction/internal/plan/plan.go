// Package plan chooses what a summarization round replaces: the four tiers
// (historical turns, historical summaries, current-task steps, current-task
// summaries) tried in order, the groups each tier offers taken oldest first,
// the remainder of the conversation counted in O(n) with an additive
// counter, and the size of the summary expected in their place, learnt from
// the summarizer's replies. It also keeps what one compaction learns about
// its rounds (the refused ones), where a summary goes once written (Splice),
// and the deep compaction a CompactionHook asks for through the ctx.
//
// A Planner works on indices into the caller's slice and never changes a
// message. It uses internal/shape for the conversation's structure and
// internal/count for the counters' method sets; the ledger's cap and the
// summary's output budget reach it as plain functions in its Config, so it
// imports neither. This file is the door: with remainder.go, which counts
// what is left of the conversation, it alone receives messages (the round's
// plan, the splice, the refusals, the measures of what a round replaces and
// of its summary); groups.go and sizes.go work on indices and counts.
package plan

import (
	"context"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// The tiers a plan can come from, in the order they are tried (the values
// of compaction's Tier constants).
const (
	tierHistoricalTurns      = "historical_turns"
	tierHistoricalSummaries  = "historical_summaries"
	tierCurrentTaskSteps     = "current_task_steps"
	tierCurrentTaskSummaries = "current_task_summaries"
)

// Plan is one round's choice of messages to replace with a single summary,
// with the fields of compaction.Plan, which converts from it. The zero Plan
// means nothing more can be summarized.
type Plan struct {
	// Tier names the rule that chose the messages (one of the tiers).
	Tier string
	// Indices are the chosen positions in the planned conversation, ascending.
	Indices []int
}

// Empty reports whether the plan selects nothing.
func (p Plan) Empty() bool { return len(p.Indices) == 0 }

// Config configures a Planner. The compactor fills it from its
// SummarizationConfig.
type Config struct {
	// MinKeep is how many of the newest agent steps of the current task are
	// never summarized (MinKeepSteps).
	MinKeep int
	// Approx is the summary size expected before any reply has been seen
	// (ApproximateSummaryTokens); 0: the default prior (see Prior).
	Approx int
	// MaxInput caps the tokens one round takes (MaxRoundInputTokens); 0: no
	// cap.
	MaxInput int
	// LedgerCap is the identifier ledger block's cap in a round to target
	// tokens; nil when the ledger is off.
	LedgerCap func(target int) int
	// OutputBudget is the tokens the summarizer is asked to write for a
	// round that replaces input tokens.
	OutputBudget func(input int) int
}

// Planner plans a compaction's rounds and learns, from the rounds it is
// told about, how large summaries come out. One Planner serves every run of
// its compactor; it is safe for concurrent use.
type Planner struct {
	cfg   Config
	sizes sizes // learned summary sizes, shared by all runs
}

// New returns a Planner with cfg.
func New(cfg Config) *Planner { return &Planner{cfg: cfg} }

// Plan chooses what the next round replaces to bring messages down to
// target tokens as counted by counter (compaction.Plan says how). refused
// holds the messages of rounds this compaction refused as not smaller. A
// ctx asking for a deep compaction (WithDeep) plans that first (planDeep);
// held says a deep round has already brought the conversation within the
// deep compaction's limit, so no usual round may take from the verbatim
// floor.
func (p *Planner) Plan(ctx context.Context, messages []*schema.Message, target int, counter count.Counter, refused Refusals, held bool) (Plan, error) {
	// One remainder serves every planning of the round: with an
	// AdditiveCounter it measures each message once.
	rest := newRemainder(ctx, messages, counter)
	if d, ok := DeepOf(ctx); ok {
		pl, err := p.planDeep(rest, refused, d.Keep)
		if err != nil || !pl.Empty() || held {
			return pl, err
		}
		// Nothing lies outside the floor (or nothing there can shrink),
		// or what is left is still above the deep compaction's limit: the
		// conversation must come down, so plan as usual.
	}
	if p.plansAhead() {
		pl, bound, err := p.planKeeping(rest, target, refused, target/recentShare)
		if err != nil || !bound {
			return pl, err
		}
		ok, err := p.reaches(rest, pl, target)
		if err != nil {
			return Plan{}, err
		}
		if ok {
			return pl, nil
		}
	}
	pl, _, err := p.planKeeping(rest, target, refused, 0)
	return pl, err
}

// recentShare: when the planner plans ahead (plansAhead), a round spares
// the newest agent steps that together hold 1/recentShare of the target,
// as far as the compaction still gets within the band above the target it
// accepts (CloseEnough); otherwise the round is planned without the floor.
// MinKeepSteps counts steps, and one large tool result among the newest
// steps left it the only thing worth summarizing: a round took it and kept
// older, smaller steps, and a quarter of the window verbatim was not kept
// (24.8 % in the simulation's few-huge-results, seed 1). With the floor the
// round takes the older steps and the summaries before them instead. A
// third rather than a half: with half, more rounds folded earlier summaries
// and their ledger blocks, and the fidelity corpus kept 95.2 % of its
// identifiers under the defaults, against 96.0 % with a third; both kept at
// least a quarter of the window verbatim in every compaction of the
// simulation (docs/benchmarks.md).
const recentShare = 3

// CloseEnough: a compaction stops once a round has brought the conversation
// within target/CloseEnough tokens above the target (about 8 %). The rounds
// that would close the last few hundred tokens were small ones after a
// large first round, each paying the instruction and a summary with its
// ledger block for little: at 5 %, two compactions of the simulation's
// few-huge-results ended with less than a quarter of the window verbatim,
// at 8 % one (docs/benchmarks.md).
const CloseEnough = 12

// reaches reports whether plan is expected to bring messages within the
// band above target that a compaction accepts (CloseEnough).
func (p *Planner) reaches(rest *remainder, plan Plan, target int) (bool, error) {
	if plan.Empty() {
		return false, nil
	}
	rest.reset()
	input, err := rest.groupTokens(plan.Indices)
	if err != nil {
		return false, err
	}
	left, err := rest.without(plan.Indices)
	if err != nil {
		return false, err
	}
	return left+p.Estimate(input, target) <= target+target/CloseEnough, nil
}

// planKeeping is plan with the newest current-task steps that hold at
// least recent tokens spared, besides the newest MinKeepSteps; bound
// reports whether that spared more than MinKeepSteps does.
func (p *Planner) planKeeping(rest *remainder, target int, refused Refusals, recent int) (pl Plan, bound bool, err error) {
	return p.planBelow(rest, target, refused, recent, len(rest.messages))
}

// planDeep plans the one round of a deep compaction (Deep): every
// group of messages before the newest ones that hold keep tokens, in the
// tiers' order and as one round where the tiers allow (the history and the
// oldest steps of the current task together, the summaries among them
// folded in), so that the floor stays verbatim and the rest becomes one
// summary.
func (p *Planner) planDeep(rest *remainder, refused Refusals, keep int) (Plan, error) {
	below, err := newestFrom(rest, keep)
	if err != nil || below == 0 {
		return Plan{}, err
	}
	// No steps are spared by their own count (recent 0): below already
	// keeps the floor, measured over every message, and steps counted
	// alone leave out what the floor holds besides them (a summary, a
	// note), which kept one more step verbatim than the floor needs.
	pl, _, err := p.planBelow(rest, 0, refused, 0, below)
	return pl, err
}

// taker takes groups oldest first, at least least of them (takeGroups from
// the whole conversation, the refused groups and those reaching below left
// out).
type taker func(groups [][]int, least int) ([]int, bool, error)

// planBelow is planKeeping taking only groups that end before index below:
// the groups each tier offers (candidatesOf), then the tiers in order.
func (p *Planner) planBelow(rest *remainder, target int, refused Refusals, recent, below int) (pl Plan, bound bool, err error) {
	cands, bound, err := p.candidatesOf(rest, recent, below)
	if err != nil {
		return Plan{}, false, err
	}
	// Rounds are planned for the target itself, not for the band above it
	// that a compaction accepts (CloseEnough): a compaction that stops
	// higher frees less, so the next one comes sooner and pays the
	// instruction, a summary's fixed part and the summaries it folds
	// again. Planning for the middle of the band read 2 % less per
	// compaction and 1 % more over a run (docs/benchmarks.md).
	//
	// Each tier measures from the whole conversation: a tier skipped
	// because it could not pay leaves nothing taken.
	take := func(groups [][]int, least int) ([]int, bool, error) {
		rest.reset()
		return p.takeGroups(rest, before(refused.filter(rest.messages, groups), below), target, least)
	}
	tiers := []func(taker, candidates) (Plan, bool, error){
		p.historicalTurns, p.historicalSummaries, p.currentTaskSteps, currentTaskSummaries,
	}
	for _, tier := range tiers {
		if pl, done, err := tier(take, cands); err != nil || done {
			return pl, bound, err
		}
	}
	return Plan{}, bound, nil
}

// candidates are the groups the tiers take from, each pairing-closed.
type candidates struct {
	r           shape.Regions
	turns       [][]int // historical turns, then stranded steps
	historySums []int   // the history's summaries
	steps       [][]int // the current task's steps a round may take
	taskSums    []int   // the current task's summaries
}

// candidatesOf finds the groups of rest's messages that the tiers may take,
// those ending before below, with the newest MinKeep steps spared and, when
// recent > 0, the newest steps that hold recent tokens too; bound reports
// whether recent spared more than MinKeep does.
func (p *Planner) candidatesOf(rest *remainder, recent, below int) (candidates, bool, error) {
	messages := rest.messages
	r := shape.RegionsOf(messages)
	seq := shape.Seq(len(messages))
	st := shape.Steps(messages, r.TaskStart(), len(messages), seq)
	c := candidates{r: r, historySums: shape.SummariesIn(messages, r.SystemEnd, min(r.HistoryEnd(), below))}
	cut, bound := max(len(st)-p.cfg.MinKeep, 0), false
	if recent > 0 {
		k, err := newestHolding(rest, st, recent)
		if err != nil {
			return candidates{}, false, err
		}
		if k < cut {
			cut, bound = k, true
		}
	}
	c.steps = shape.KeepPairs(messages, st[:cut], st[cut:])
	// Stranded steps go after the turns: the turns are what the reference
	// takes, and the steps are taken when the turns do not suffice.
	units := append(shape.TurnUnits(messages, r, seq), shape.Stranded(messages, r, seq)...)
	c.turns = shape.KeepPairs(messages, units, st)
	c.taskSums = shape.SummariesIn(messages, r.TaskStart(), below)
	return c, bound, nil
}

// historicalTurns is the first tier: the oldest turns before the current
// task, with the task's oldest steps across the request or the history's
// summaries folded in when the turns alone cannot reach the target and the
// planner plans ahead. done reports whether the tier decided the round.
func (p *Planner) historicalTurns(take taker, c candidates) (Plan, bool, error) {
	if len(c.turns) == 0 {
		return Plan{}, false, nil
	}
	sel, fits, err := take(c.turns, 1)
	if err == nil && sel != nil && !fits && p.plansAhead() {
		if pl, ok, err := p.acrossRequest(take, c.turns, c.historySums, c.steps, c.r); err != nil || ok {
			return pl, true, err
		}
		sel, err = p.foldInto(take, sel, c.turns, c.historySums)
	}
	return Plan{Tier: tierHistoricalTurns, Indices: sel}, err != nil || sel != nil, err
}

// historicalSummaries is the second tier: two or more of the history's
// summaries folded into one.
func (p *Planner) historicalSummaries(take taker, c candidates) (Plan, bool, error) {
	sel, err := foldSummaries(take, c.historySums)
	if err == nil && sel == nil {
		return Plan{}, false, nil
	}
	// Folding reads summaries again, which frees the least per token
	// read; when the planner plans ahead (plansAhead), the fold waits
	// while the task's steps alone reach the target.
	stepsSel, fits, serr := take(c.steps, 1)
	if err == nil && serr == nil && stepsSel != nil && fits && p.plansAhead() {
		return Plan{Tier: tierCurrentTaskSteps, Indices: stepsSel}, true, nil
	}
	return Plan{Tier: tierHistoricalSummaries, Indices: sel}, true, err
}

// currentTaskSteps is the third tier: the oldest steps of the current task,
// with its summaries folded in when the steps alone cannot reach the target
// and the planner plans ahead.
func (p *Planner) currentTaskSteps(take taker, c candidates) (Plan, bool, error) {
	if len(c.steps) == 0 {
		return Plan{}, false, nil
	}
	sel, fits, err := take(c.steps, 1)
	if err == nil && sel != nil && !fits && p.plansAhead() {
		sel, err = p.foldInto(take, sel, c.steps, c.taskSums)
	}
	return Plan{Tier: tierCurrentTaskSteps, Indices: sel}, err != nil || sel != nil, err
}

// currentTaskSummaries is the last tier: two or more of the current task's
// summaries folded into one.
func currentTaskSummaries(take taker, c candidates) (Plan, bool, error) {
	sel, err := foldSummaries(take, c.taskSums)
	return Plan{Tier: tierCurrentTaskSummaries, Indices: sel}, err != nil || sel != nil, err
}

// plansAhead reports whether the planner may depart from the reference's
// one-tier rounds (across the request, folding summaries in, folds waiting
// for steps): their savings rest on the summary's size, known once the
// summarizer's replies have been seen. The default prior is an estimate of
// it too (it counts a full ledger block and grows with the input), so a
// compactor on the default prior plans ahead from its first compaction;
// one with ApproximateSummaryTokens set plans as the reference does until
// it has seen replies, which the reference cases rely on. Without this, the
// first compaction of a run made two rounds and left two summaries with
// their ledger blocks where the recent work should be (22 % of the window
// verbatim in the simulation's many-small-results, seed 3).
func (p *Planner) plansAhead() bool {
	return p.sizes.observed() || p.cfg.Approx == 0
}

// Splice returns a new conversation in which the messages at indices are
// gone and summary sits where the first of them was, or, when they lie on
// both sides of the current request, where the first of them after it was:
// a summary of earlier turns and of steps taken for the request follows the
// request, which keeps its place. Everything else keeps its order. messages
// itself is not touched.
func Splice(messages []*schema.Message, indices []int, summary *schema.Message) []*schema.Message {
	from := 0
	if task := shape.RegionsOf(messages).Task; task >= 0 && len(indices) > 0 && slices.Min(indices) < task && slices.Max(indices) > task {
		from = task + 1
	}
	drop := make([]bool, len(messages))
	first, atFrom := len(messages), len(messages)
	for _, i := range indices {
		drop[i] = true
		first = min(first, i)
		if i >= from {
			atFrom = min(atFrom, i)
		}
	}
	if atFrom < len(messages) {
		first = atFrom
	}
	out := make([]*schema.Message, 0, len(messages)-len(indices)+1)
	for i, m := range messages {
		if i == first {
			out = append(out, summary)
		}
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}

// Refusals are the messages of the rounds refused in one compaction because
// their summary did not make the conversation smaller. Later rounds of the
// same compaction plan around them, so that one part that cannot shrink does
// not keep the rest of the conversation from being compacted. Messages are
// known by identity: a successful round keeps the other messages' pointers.
type Refusals map[*schema.Message]struct{}

// Add records the messages at indices.
func (r Refusals) Add(messages []*schema.Message, indices []int) {
	for _, i := range indices {
		if m := messages[i]; m != nil {
			r[m] = struct{}{}
		}
	}
}

// filter drops the groups that hold a refused message. Groups are whole
// units of the planner (pairing-closed), so dropping one parts no tool call
// from its results.
func (r Refusals) filter(messages []*schema.Message, groups [][]int) [][]int {
	if len(r) == 0 {
		return groups
	}
	out := make([][]int, 0, len(groups))
	for _, g := range groups {
		if !r.holdsAny(messages, g) {
			out = append(out, g)
		}
	}
	return out
}

func (r Refusals) holdsAny(messages []*schema.Message, group []int) bool {
	for _, i := range group {
		if _, ok := r[messages[i]]; ok && messages[i] != nil {
			return true
		}
	}
	return false
}

// ReplacedTokens is the counter's size of the messages plan replaces.
func ReplacedTokens(ctx context.Context, messages []*schema.Message, plan Plan, counter count.Counter) (int, error) {
	replaced := make([]*schema.Message, len(plan.Indices))
	for n, i := range plan.Indices {
		replaced[n] = messages[i]
	}
	in, err := counter.Count(ctx, replaced, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: measuring what a summary replaces: %w", err)
	}
	return in, nil
}

// Learn records the size of a round's summary against the in tokens it
// replaced. A counting error is returned like any other: every number the
// compactor acts on is measured, none guessed.
func (p *Planner) Learn(ctx context.Context, in int, summary *schema.Message, counter count.Counter) error {
	out, err := counter.Count(ctx, []*schema.Message{summary}, nil)
	if err != nil {
		return fmt.Errorf("compaction: measuring a summary: %w", err)
	}
	p.Observe(in, out)
	return nil
}

// followUpShare: near the target, a follow-up round must be expected to
// close at least 1/followUpShare of the gap between the conversation and the
// target.
const followUpShare = 4

// Overshoots reports whether a follow-up round is not worth its summarizer
// call: it would land further below the target than the conversation now
// stands above it (its smallest selection is one large group, a big tool
// result, that closes a small gap), or, with the conversation within
// 1/followUpShare of the target, it is expected to close less than
// 1/followUpShare of the gap (all that is left to take is a step or two,
// whose summary costs about what they do: such rounds were refused as not
// smaller, or kept by dropping their ledger block). The compaction then stops
// above the target; the next compaction comes a little earlier instead.
func (p *Planner) Overshoots(ctx context.Context, messages []*schema.Message, plan Plan, current, target int, counter count.Counter) (bool, error) {
	replaced := make([]*schema.Message, len(plan.Indices))
	for n, i := range plan.Indices {
		replaced[n] = messages[i]
	}
	in, err := counter.Count(ctx, replaced, nil)
	if err != nil {
		return false, fmt.Errorf("compaction: measuring a planned round: %w", err)
	}
	after := current - in + p.Estimate(in, target)
	gap := current - target
	near := gap <= target/followUpShare
	return target-after > gap || (near && current-after < gap/followUpShare), nil
}
