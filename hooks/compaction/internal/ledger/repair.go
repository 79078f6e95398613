package ledger

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// Repair appends the identifiers the summary lost, most used and newest
// first, as far as MaxTokens allows, and returns the new text, the stats and
// the marker fields to record.
func (l Ledger) Repair(ctx context.Context, text string, entries []Entry, counter count.Counter) (string, Stats, map[string]any, error) {
	stats := Stats{Found: len(entries)}
	if l.off || len(entries) == 0 {
		return text, stats, nil, nil
	}
	// All identifiers are checked together (spotlight.Kept, through
	// substrings.FoundIn): a search per identifier made this quadratic
	// (thousands of identifiers, a summary of kilobytes), and an automaton
	// over all of them cost more to build than the summary costs to read.
	// A value counts as kept written verbatim or in its datamarked form
	// (spotlight.Datamark), the way the extractive summarizer quotes tool
	// text; the CLI's report counts by the same rule.
	values := make([]string, len(entries))
	for i, e := range entries {
		values[i] = e.value
	}
	found := spotlight.Kept(text, values)
	survived := func(i int) bool { return found[i] }
	for i := range entries {
		if survived(i) {
			stats.Survived++
		}
	}
	// Sized exactly: most identifiers are lost (a summary quotes few), and
	// growing the list by doubling was a tenth of what compaction allocated.
	lost := make([]Entry, 0, len(entries)-stats.Survived)
	for i := range entries {
		if !survived(i) {
			lost = append(lost, entries[i])
		}
	}
	// Keep the most used, then the newest; drop the oldest and least used.
	// Ties keep their order: the position in lost breaks them, which gives
	// a stable sort's order with an unstable sort's speed.
	lost = sortLost(lost)
	kept, block, err := l.fit(ctx, lost, counter)
	if err != nil {
		return text, stats, nil, err
	}
	stats.Appended, stats.Dropped = kept, len(lost)-kept
	if kept > 0 {
		text += "\n\n" + block
	}
	// Copies: a value may be part of the text Collect rendered all the
	// replaced messages into, which the summary must not keep alive. They
	// are copied into one string and sliced from it, one allocation where
	// a copy each was a third of a small compaction's allocations.
	keep := entries[max(len(entries)-l.remember, 0):]
	size := 0
	for _, e := range keep {
		size += len(e.value)
	}
	var copies strings.Builder
	copies.Grow(size)
	for _, e := range keep {
		copies.WriteString(e.value)
	}
	all := copies.String()
	remembered := make([]any, 0, len(keep))
	for _, e := range keep {
		remembered = append(remembered, all[:len(e.value)])
		all = all[len(e.value):]
	}
	return text, stats, map[string]any{MarkerKey: remembered}, nil
}

// sortLost orders lost entries most used first, then newest first, ties in
// their order in lost: a stable sort's order with an unstable sort's speed.
// When the three fit in 21 bits each they are packed in one key, so the sort
// compares integers instead of calling a function per comparison, and lost
// is put in that order in place (a copy of it was as large as the keys and
// the list of values together). Otherwise a sorted copy is returned.
func sortLost(lost []Entry) []Entry {
	const bits, limit = 21, 1 << 21
	packable := len(lost) < limit
	for _, e := range lost {
		packable = packable && e.uses >= 0 && e.uses < limit && e.last >= 0 && e.last < limit
	}
	if packable {
		keys := make([]uint64, len(lost))
		for i, e := range lost {
			keys[i] = uint64(limit-1-e.uses)<<(2*bits) | uint64(limit-1-e.last)<<bits | uint64(i)
		}
		slices.Sort(keys)
		// Position i takes the entry at keys[i]'s index: the cycles of
		// that permutation are followed, each position written once,
		// and the keys' free top bit marks the positions done.
		const done = 1 << 63
		for i := range keys {
			if keys[i]&done != 0 {
				continue
			}
			first := lost[i]
			j := i
			for {
				from := int(keys[j] & (limit - 1))
				keys[j] |= done
				if from == i {
					lost[j] = first
					break
				}
				lost[j] = lost[from]
				j = from
			}
		}
		return lost
	}
	sorted := make([]Entry, len(lost))
	order := make([]int, len(lost))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := lost[a], lost[b]
		return cmp.Or(cmp.Compare(y.uses, x.uses), cmp.Compare(y.last, x.last), cmp.Compare(a, b))
	})
	for i, k := range order {
		sorted[i] = lost[k]
	}
	return sorted
}
