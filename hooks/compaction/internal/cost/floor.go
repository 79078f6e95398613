package cost

import "math"

// FloorPermille is the share of the window, in thousandths, a deep
// compaction keeps verbatim: a fifth (issue 23 asks for at least 20 %) and
// 0.2 % more. The floor is measured by the hook's own
// counter over the newest messages together, so it needs no room for a
// counter that measures them differently, only for rounding: the simulation
// (`go run ./cmd/benchcompare -bill`) kept at least 20.2 % of the window with
// it. A whole percent, as first chosen, kept 21.0 % and cost 1-2 % of the
// OpenAI-like bill (einocompact-aligned / Eino 0.863, 0.870 and 0.892
// against 0.852, 0.869 and 0.871).
const FloorPermille = 202

// Floor is how many of the newest tokens a deep compaction keeps verbatim
// in a window of window tokens: FloorPermille thousandths of it, rounded
// up. A window too large to multiply (the product would overflow) is
// divided first.
func Floor(window int) int {
	if window > (math.MaxInt-999)/FloorPermille {
		return window / 1000 * FloorPermille
	}
	return (window*FloorPermille + 999) / 1000
}

// Keep decides how deep a compaction goes under the rates r that choose the
// depth, for a call of c.Estimate tokens (overhead of them outside the
// messages). It returns -1 to aim at the usual target, a call size of
// usual tokens, and keep, the verbatim floor, when keeping the newest keep
// tokens verbatim and summarizing everything older costs less per call.
func (c Cycle) Keep(r Rates, overhead, usual, keep int) int {
	// The call a deep compaction leaves: what stays at the front, the
	// verbatim floor, the summary of the rest, and what the call sends
	// besides its messages (tool schemas).
	overhead = max(overhead, 0)
	deep := c.Prefix + keep + SummaryBudget(c.Estimate-overhead-c.Prefix-keep) + overhead
	if deep >= usual || c.Rate(r, deep) >= c.Rate(r, usual) {
		return -1
	}
	return keep
}
