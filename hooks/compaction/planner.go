package compaction

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
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
	return c.plan(ctx, messages, max(target, 0), counter, nil, false)
}

// plan is Plan with the rounds the compaction refused as not smaller. A ctx
// from a CompactionHook asking for a deep compaction (Report.Deep) plans
// that first (planDeep); held says a deep round has already brought the
// conversation within the deep compaction's limit, so no usual round may
// take from the verbatim floor.
func (c *SummarizationCompactor) plan(ctx context.Context, messages []*schema.Message, target int, counter TokenCounter, refused refusals, held bool) (Plan, error) {
	// One remainder serves every planning of the round: with an
	// AdditiveCounter it measures each message once.
	rest := newRemainder(ctx, messages, counter)
	if d, ok := deepOf(ctx); ok {
		p, err := c.planDeep(rest, refused, d.keep)
		if err != nil || !p.Empty() || held {
			return p, err
		}
		// Nothing lies outside the floor (or nothing there can shrink),
		// or what is left is still above the deep compaction's limit: the
		// conversation must come down, so plan as usual.
	}
	if c.plansAhead() {
		p, bound, err := c.planKeeping(rest, target, refused, target/recentShare)
		if err != nil || !bound {
			return p, err
		}
		ok, err := c.reaches(rest, p, target)
		if err != nil {
			return Plan{}, err
		}
		if ok {
			return p, nil
		}
	}
	p, _, err := c.planKeeping(rest, target, refused, 0)
	return p, err
}

// recentShare: when the planner plans ahead (plansAhead), a round spares
// the newest agent steps that together hold 1/recentShare of the target,
// as far as the compaction still gets within the band above the target it
// accepts (closeEnough); otherwise the round is planned without the floor.
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

// reaches reports whether plan is expected to bring messages within the
// band above target that a compaction accepts (closeEnough).
func (c *SummarizationCompactor) reaches(rest *remainder, plan Plan, target int) (bool, error) {
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
	return left+c.estimate(input, target) <= target+target/closeEnough, nil
}

// planKeeping is plan with the newest current-task steps that hold at
// least recent tokens spared, besides the newest MinKeepSteps; bound
// reports whether that spared more than MinKeepSteps does.
func (c *SummarizationCompactor) planKeeping(rest *remainder, target int, refused refusals, recent int) (p Plan, bound bool, err error) {
	return c.planBelow(rest, target, refused, recent, len(rest.messages))
}

// planDeep plans the one round of a deep compaction (Report.Deep): every
// group of messages before the newest ones that hold keep tokens, in the
// tiers' order and as one round where the tiers allow (the history and the
// oldest steps of the current task together, the summaries among them
// folded in), so that the floor stays verbatim and the rest becomes one
// summary.
func (c *SummarizationCompactor) planDeep(rest *remainder, refused refusals, keep int) (Plan, error) {
	below, err := newestFrom(rest, keep)
	if err != nil || below == 0 {
		return Plan{}, err
	}
	// No steps are spared by their own count (recent 0): below already
	// keeps the floor, measured over every message, and steps counted
	// alone leave out what the floor holds besides them (a summary, a
	// note), which kept one more step verbatim than the floor needs.
	p, _, err := c.planBelow(rest, 0, refused, 0, below)
	return p, err
}

// newestFrom returns the index from which the newest messages hold at least
// keep tokens (0 when all of them hold less). The newest messages are
// measured together, as the counter measures the conversation they stay in:
// a counter that charges each request a fixed part (a provider's counting
// endpoint) counts messages together as less than the sum of their counts
// one by one, and such a sum left the floor short
// (TestDeepCompactionFloorIsMeasuredAsAWhole).
func newestFrom(rest *remainder, keep int) (int, error) {
	n := len(rest.messages)
	seq := make([]int, n)
	for i := range seq {
		seq[i] = i
	}
	// The newest messages from i hold less as i grows: the floor starts
	// just before the first i whose messages hold less than keep.
	var err error
	short := sort.Search(n, func(i int) bool {
		if err != nil {
			return true
		}
		held, cerr := rest.groupTokens(seq[i:])
		if cerr != nil {
			err = cerr
			return true
		}
		return held < keep
	})
	if err != nil {
		return 0, err
	}
	return max(short-1, 0), nil
}

// planBelow is planKeeping taking only groups that end before index below.
func (c *SummarizationCompactor) planBelow(rest *remainder, target int, refused refusals, recent, below int) (p Plan, bound bool, err error) {
	messages := rest.messages
	r := shape.RegionsOf(messages)
	seq := shape.Seq(len(messages))
	// Rounds are planned for the target itself, not for the band above it
	// that a compaction accepts (closeEnough): a compaction that stops
	// higher frees less, so the next one comes sooner and pays the
	// instruction, a summary's fixed part and the summaries it folds
	// again. Planning for the middle of the band read 2 % less per
	// compaction and 1 % more over a run (docs/benchmarks.md).
	//
	// Each tier measures from the whole conversation: a tier skipped
	// because it could not pay leaves nothing taken.
	taker := func(groups [][]int, least int) ([]int, bool, error) {
		rest.reset()
		return c.takeGroups(rest, before(refused.filter(messages, groups), below), target, least)
	}

	st := shape.Steps(messages, r.TaskStart(), len(messages), seq)
	historySums := shape.SummariesIn(messages, r.SystemEnd, min(r.HistoryEnd(), below))
	cut := max(len(st)-c.minKeep, 0)
	if recent > 0 {
		k, err := newestHolding(rest, st, recent)
		if err != nil {
			return Plan{}, false, err
		}
		if k < cut {
			cut, bound = k, true
		}
	}
	eligible := shape.KeepPairs(messages, st[:cut], st[cut:])
	// Stranded steps go after the turns: the turns are what the reference
	// takes, and the steps are taken when the turns do not suffice.
	units := append(shape.TurnUnits(messages, r, seq), shape.Stranded(messages, r, seq)...)
	if ts := shape.KeepPairs(messages, units, st); len(ts) > 0 {
		sel, fits, err := taker(ts, 1)
		if err == nil && sel != nil && !fits && c.plansAhead() {
			if p, ok, err := c.acrossRequest(taker, ts, historySums, eligible, r); err != nil || ok {
				return p, bound, err
			}
			sel, err = c.foldInto(taker, sel, ts, historySums)
		}
		if err != nil || sel != nil {
			return Plan{Tier: TierHistoricalTurns, Indices: sel}, bound, err
		}
	}
	taskSums := shape.SummariesIn(messages, r.TaskStart(), below)
	if sel, err := foldSummaries(taker, historySums); err != nil || sel != nil {
		// Folding reads summaries again, which frees the least per token
		// read; when the planner plans ahead (plansAhead), the fold waits
		// while the task's steps alone reach the target.
		stepsSel, fits, serr := taker(eligible, 1)
		if err == nil && serr == nil && stepsSel != nil && fits && c.plansAhead() {
			return Plan{Tier: TierCurrentTaskSteps, Indices: stepsSel}, bound, nil
		}
		return Plan{Tier: TierHistoricalSummaries, Indices: sel}, bound, err
	}
	if len(eligible) > 0 {
		sel, fits, err := taker(eligible, 1)
		if err == nil && sel != nil && !fits && c.plansAhead() {
			sel, err = c.foldInto(taker, sel, eligible, taskSums)
		}
		if err != nil || sel != nil {
			return Plan{Tier: TierCurrentTaskSteps, Indices: sel}, bound, err
		}
	}
	if sel, err := foldSummaries(taker, taskSums); err != nil || sel != nil {
		return Plan{Tier: TierCurrentTaskSummaries, Indices: sel}, bound, err
	}
	return Plan{}, bound, nil
}

// acrossRequest plans one round over the history and the oldest steps of
// the current task, for a compaction that the history alone cannot bring to
// the target. Two rounds (the history, then the steps) each pay the
// instruction and a summary's fixed part, and leave two summaries, each with
// its ledger block, in the room the recent work needs. The one summary goes
// after the current request, where the first replaced step was: the request
// stays verbatim and in its place, and the summary tells what came before
// it and what was done for it so far. The reference plans the two rounds;
// this applies when the planner plans ahead (plansAhead).
// ok is false when the history with its summaries reaches the target after
// all, or no step can be taken.
func (c *SummarizationCompactor) acrossRequest(taker func([][]int, int) ([]int, bool, error), turns [][]int, sums []int, steps [][]int, r shape.Regions) (Plan, bool, error) {
	if len(steps) == 0 || r.Task < 0 {
		return Plan{}, false, nil
	}
	sel, _, err := taker(append(withSummaries(turns, sums), steps...), 1)
	if err != nil || sel == nil || slices.Max(sel) < r.Task {
		return Plan{}, false, err
	}
	return Plan{Tier: TierCurrentTaskSteps, Indices: sel}, true, nil
}

// foldSummaries picks summaries to merge: as many as the target asks for, but
// never fewer than two, since rewriting a single summary frees nothing.
func foldSummaries(taker func([][]int, int) ([]int, bool, error), sums []int) ([]int, error) {
	if len(sums) < 2 {
		return nil, nil
	}
	groups := make([][]int, len(sums))
	for i, s := range sums {
		groups[i] = []int{s}
	}
	sel, _, err := taker(groups, 2)
	return sel, err
}

// foldInto replans a selection that does not reach the target with the
// region's summaries as groups too (see withSummaries). The new selection is
// kept when it reaches the target, or else when it still holds all of the
// old one: under MaxRoundInputTokens the summaries may take the room of
// a group, and a smaller round is no saving.
func (c *SummarizationCompactor) foldInto(taker func([][]int, int) ([]int, bool, error), sel []int, units [][]int, sums []int) ([]int, error) {
	merged := withSummaries(units, sums)
	if len(merged) == len(units) {
		return sel, nil
	}
	wider, fits, err := taker(merged, 1)
	if err != nil || wider == nil {
		return sel, err
	}
	if onlySummaries(wider, sums) {
		// Rewriting summaries alone is a fold, and folding a single one
		// frees little and loses what its ledger kept.
		return sel, nil
	}
	if fits {
		return wider, nil
	}
	sorted := slices.Sorted(slices.Values(wider))
	for _, i := range sel {
		if _, found := slices.BinarySearch(sorted, i); !found {
			return sel, nil
		}
	}
	return wider, nil
}

// onlySummaries reports whether every index of sel is one of sums.
func onlySummaries(sel, sums []int) bool {
	for _, i := range sel {
		if !slices.Contains(sums, i) {
			return false
		}
	}
	return true
}

// withSummaries returns the turn units and the history's summaries that
// belong to no turn (those before the first real user message) as one list
// of groups in conversation order, each such summary a group of its own.
//
// A historical-turns round that takes every turn and still does not reach
// the target would be followed by a round folding those summaries with the
// one it writes, reading that new summary again and paying a call for it.
// Planning the summaries with the turns instead folds them in the same
// call, and taking groups oldest first from that list leaves the newest
// turn's recent steps verbatim when the summaries free enough. The
// reference takes the turns alone; this applies when the planner plans
// ahead (plansAhead), since the saving rests on the summaries' size.
func withSummaries(units [][]int, sums []int) [][]int {
	inUnit := map[int]bool{}
	for _, u := range units {
		for _, i := range u {
			inUnit[i] = true
		}
	}
	out := slices.Clone(units)
	for _, s := range sums {
		if !inUnit[s] {
			out = append(out, []int{s})
		}
	}
	slices.SortStableFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// takeGroups takes groups oldest first, at least least of them, until the
// messages left plus one summary of the estimated size fit target and the
// selection pays for its summary; all groups when that never happens. The
// result is the flat list of taken indices, whether they reach the target,
// and nil when fewer than least groups are offered or even all of them are
// no larger than the summary expected for them: such a round could only fail
// as not smaller, so the planner moves on to the next tier instead.
//
// When the group that reaches the target is large, the groups taken before
// it may no longer all be needed: those that are not are dropped again (see
// trim), so a big recent tool result does not drag the whole stretch before
// it into the summary.
//
// Under MaxRoundInputTokens a group that would push the selection past
// the cap is not taken, unless nothing has been taken yet: then it goes alone
// and the transcript is cut to fit (see fitTranscript).
func (c *SummarizationCompactor) takeGroups(rest *remainder, groups [][]int, target, least int) (sel []int, fits bool, err error) {
	if len(groups) < least {
		return nil, false, nil
	}
	sizes := make([]int, 0, len(groups))
	input := 0
	for _, g := range groups {
		n, err := rest.groupTokens(g)
		if err != nil {
			return nil, false, err
		}
		if c.maxInput > 0 && len(sizes) >= least && input+n > c.maxInput {
			break
		}
		input += n
		sizes = append(sizes, n)
		left, err := rest.without(g)
		if err != nil {
			return nil, false, err
		}
		fits = left+c.estimate(input, target) <= target
		if len(sizes) >= least && fits && c.pays(input, target) {
			break
		}
	}
	if !c.pays(input, target) {
		return nil, false, nil
	}
	taken := groups[:len(sizes)]
	if fits && len(taken) > least {
		return c.trim(rest, taken, sizes, input, target, least)
	}
	for _, g := range taken {
		sel = append(sel, g...)
	}
	slices.Sort(sel) // groups may come out of order (shape.Stranded)
	return sel, fits, nil
}

// trim drops from a selection that reaches the target the groups it does
// not need, newest first, except the last one taken (without it the target
// was not reached): a large group that reaches the target alone makes the
// smaller groups taken before it unnecessary, and they stay verbatim. Older
// groups are dropped last, so what is summarized is still the oldest that
// will do. rest must have every taken group removed.
func (c *SummarizationCompactor) trim(rest *remainder, taken [][]int, sizes []int, input, target, least int) ([]int, bool, error) {
	keep := make([]bool, len(taken))
	for k := range keep {
		keep[k] = true
	}
	count := len(taken)
	for k := len(taken) - 2; k >= 0 && count > least; k-- {
		left, err := rest.restore(taken[k])
		if err != nil {
			return nil, false, err
		}
		if in := input - sizes[k]; left+c.estimate(in, target) <= target && c.pays(in, target) {
			keep[k], input = false, in
			count--
			continue
		}
		if _, err := rest.without(taken[k]); err != nil {
			return nil, false, err
		}
	}
	var sel []int
	for k, g := range taken {
		if keep[k] {
			sel = append(sel, g...)
		}
	}
	slices.Sort(sel)
	return sel, true, nil
}

// remainder counts what is left of a conversation as groups are taken away,
// one group at a time. With an AdditiveCounter each message is measured once
// and every remainder costs O(1); otherwise the remainder is rebuilt and
// recounted, which gives the same numbers at O(n) per candidate.
type remainder struct {
	ctx      context.Context
	messages []*schema.Message
	counter  TokenCounter
	removed  []bool
	k        int // messages removed so far

	additive AdditiveCounter
	costs    []Cost // per message, filled on first use
	total    Cost
	gone     Cost
}

func newRemainder(ctx context.Context, messages []*schema.Message, counter TokenCounter) *remainder {
	r := &remainder{ctx: ctx, messages: messages, counter: counter}
	r.additive, _ = counter.(AdditiveCounter)
	return r
}

// init measures every message once, on first use.
func (r *remainder) init() {
	if r.removed != nil {
		return
	}
	r.removed = make([]bool, len(r.messages))
	if r.additive != nil {
		// The default counter has most costs cached from Compact's count.
		if mc, ok := r.additive.(interface {
			messageCosts([]*schema.Message) []Cost
		}); ok {
			r.costs = mc.messageCosts(r.messages)
		} else {
			r.costs = make([]Cost, len(r.messages))
			for i, m := range r.messages {
				r.costs[i] = r.additive.MessageCost(m)
			}
		}
		for _, cost := range r.costs {
			r.total = r.total.Add(cost)
		}
	}
}

// reset puts every removed message back, keeping the measurements.
func (r *remainder) reset() {
	if r.removed == nil {
		return
	}
	clear(r.removed)
	r.k, r.gone = 0, Cost{}
}

// restore puts group back into the remainder and returns its size.
func (r *remainder) restore(group []int) (int, error) {
	r.init()
	for _, i := range group {
		if !r.removed[i] {
			continue
		}
		r.removed[i] = false
		r.k--
		if r.additive != nil {
			r.gone = r.gone.Sub(r.costs[i])
		}
	}
	return r.without(nil)
}

// without removes group from the remainder and returns the remainder's size.
func (r *remainder) without(group []int) (int, error) {
	r.init()
	for _, i := range group {
		if r.removed[i] {
			continue
		}
		r.removed[i] = true
		r.k++
		if r.additive != nil {
			r.gone = r.gone.Add(r.costs[i])
		}
	}
	if r.additive != nil {
		return r.additive.Tokens(r.total.Sub(r.gone), len(r.messages)-r.k), nil
	}
	kept := make([]*schema.Message, 0, len(r.messages)-r.k)
	for i, m := range r.messages {
		if !r.removed[i] {
			kept = append(kept, m)
		}
	}
	n, err := r.counter.Count(r.ctx, kept, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting a candidate remainder: %w", err)
	}
	return n, nil
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
func (c *SummarizationCompactor) plansAhead() bool {
	return c.sizes.observed() || c.approx == 0
}

// newestHolding returns the number of steps before the newest ones that
// together hold at least recent tokens: steps[k:] hold that much, and
// steps[k+1:] do not. When all of them hold less, it returns 0: every step
// is spared, and plan falls back to the round without the floor unless the
// rest reaches the band.
func newestHolding(rest *remainder, steps [][]int, recent int) (int, error) {
	held := 0
	for k := len(steps) - 1; k >= 0; k-- {
		n, err := rest.groupTokens(steps[k])
		if err != nil {
			return 0, err
		}
		if held += n; held >= recent {
			return k, nil
		}
	}
	return 0, nil
}

// before returns the groups whose every message comes before index below.
func before(groups [][]int, below int) [][]int {
	return slices.DeleteFunc(slices.Clone(groups), func(g []int) bool { return slices.Max(g) >= below })
}
