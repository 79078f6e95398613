package plan

import (
	"context"
	"slices"
	"sort"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

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
func (p *Planner) acrossRequest(take taker, turns [][]int, sums []int, steps [][]int, r shape.Regions) (Plan, bool, error) {
	if len(steps) == 0 || r.Task < 0 {
		return Plan{}, false, nil
	}
	sel, _, err := take(append(withSummaries(turns, sums), steps...), 1)
	if err != nil || sel == nil || slices.Max(sel) < r.Task {
		return Plan{}, false, err
	}
	return Plan{Tier: tierCurrentTaskSteps, Indices: sel}, true, nil
}

// foldSummaries picks summaries to merge: as many as the target asks for, but
// never fewer than two, since rewriting a single summary frees nothing.
func foldSummaries(take taker, sums []int) ([]int, error) {
	if len(sums) < 2 {
		return nil, nil
	}
	groups := make([][]int, len(sums))
	for i, s := range sums {
		groups[i] = []int{s}
	}
	sel, _, err := take(groups, 2)
	return sel, err
}

// foldInto replans a selection that does not reach the target with the
// region's summaries as groups too (see withSummaries). The new selection is
// kept when it reaches the target, or else when it still holds all of the
// old one: under MaxRoundInputTokens the summaries may take the room of
// a group, and a smaller round is no saving.
func (p *Planner) foldInto(take taker, sel []int, units [][]int, sums []int) ([]int, error) {
	merged := withSummaries(units, sums)
	if len(merged) == len(units) {
		return sel, nil
	}
	wider, fits, err := take(merged, 1)
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
// and the transcript is cut to fit (request.Settings.Fit).
func (p *Planner) takeGroups(rest *remainder, groups [][]int, target, least int) (sel []int, fits bool, err error) {
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
		if p.cfg.MaxInput > 0 && len(sizes) >= least && input+n > p.cfg.MaxInput {
			break
		}
		input += n
		sizes = append(sizes, n)
		left, err := rest.without(g)
		if err != nil {
			return nil, false, err
		}
		fits = left+p.Estimate(input, target) <= target
		if len(sizes) >= least && fits && p.pays(input, target) {
			break
		}
	}
	if !p.pays(input, target) {
		return nil, false, nil
	}
	taken := groups[:len(sizes)]
	if fits && len(taken) > least {
		return p.trim(rest, taken, sizes, input, target, least)
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
func (p *Planner) trim(rest *remainder, taken [][]int, sizes []int, input, target, least int) ([]int, bool, error) {
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
		if in := input - sizes[k]; left+p.Estimate(in, target) <= target && p.pays(in, target) {
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

// NewestFrom returns the index from which the newest of messages hold at
// least keep tokens by counter (0 when all of them hold less): where a deep
// compaction's verbatim floor starts. A ToolResultPruningCompactor before a
// summarization stage leaves the messages from there alone.
func NewestFrom(ctx context.Context, messages []*schema.Message, counter count.Counter, keep int) (int, error) {
	return newestFrom(newRemainder(ctx, messages, counter), keep)
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
