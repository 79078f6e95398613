package extractive

import (
	"slices"
	"strings"

	"github.com/samber/lo"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// Layout: each section is its heading, a newline and its bullets ("- TEXT",
// one per line) or "(none)"; sections are separated by a blank line.
const (
	bulletMark = "- "
	noneText   = "(none)"
)

// size is the rendered length in code points of secs.
func size(secs *sections) int {
	n := 0
	for sec, bs := range secs {
		if sec > 0 {
			n += 2
		}
		n += runeLen(headings[sec]) + 1
		if len(bs) == 0 {
			n += len(noneText)
			continue
		}
		for i, b := range bs {
			if i > 0 {
				n++
			}
			n += len(bulletMark) + b.runes
		}
	}
	return n
}

// fit renders secs if it can be made shorter than limit code points: first
// by dropping repeats, then the oldest bullets. It reports false when even
// the bare headings are too long.
func fit(secs *sections, limit int) (string, bool) {
	if size(secs) >= limit {
		dropRepeats(secs)
	}
	if size(secs) >= limit {
		dropOldest(secs, limit)
	}
	if size(secs) >= limit {
		return "", false
	}
	out := render(secs)
	if runeLen(out) >= limit {
		return "", false
	}
	return out, true
}

// dropOrder breaks ties between bullets of the same age: the lowest goes
// first, so a request's own words in Unresolved and Objective go last.
var dropOrder = [numSections]int{secWork: 0, secIdentifiers: 1, secDecisions: 2, secObjective: 3, secUnresolved: 4}

// dropOldest removes bullets, oldest first, until secs renders in fewer than
// limit code points or no bullet is left. It keeps a running size instead of
// re-measuring, so it is O(n log n) in bullets.
func dropOldest(secs *sections, limit int) {
	type ref struct{ sec, idx int }
	var all []ref
	for sec, bs := range secs {
		for i := range bs {
			all = append(all, ref{sec, i})
		}
	}
	slices.SortStableFunc(all, func(a, b ref) int {
		if d := secs[a.sec][a.idx].age - secs[b.sec][b.idx].age; d != 0 {
			return d
		}
		return dropOrder[a.sec] - dropOrder[b.sec]
	})
	total := size(secs)
	var left [numSections]int
	drop := make(map[ref]bool)
	for sec := range secs {
		left[sec] = len(secs[sec])
	}
	for _, r := range all {
		if total < limit {
			break
		}
		total -= len(bulletMark) + secs[r.sec][r.idx].runes
		if left[r.sec] > 1 {
			total-- // the newline that separated it from a neighbour
		} else {
			total += len(noneText)
		}
		left[r.sec]--
		drop[r] = true
	}
	for sec := range secs {
		secs[sec] = lo.Reject(secs[sec], func(_ bullet, i int) bool { return drop[ref{sec, i}] })
	}
}

// dropRepeats removes bullets whose whole text another section already
// shows (an identifier inside a tool call bullet, a request that is both the
// objective and a decision), so the budget loses words, not facts. Unresolved
// is never thinned; the others are, in the order Identifiers, Decisions,
// Work, Objective.
func dropRepeats(secs *sections) {
	for _, sec := range []int{secIdentifiers, secDecisions, secWork, secObjective} {
		secs[sec] = lo.Reject(secs[sec], func(b bullet, _ int) bool { return shownElsewhere(secs, sec, b.text) })
	}
}

// shownElsewhere reports whether another section shows text. A marked text
// is shown by its value as it is (a tool call's arguments) or by its
// datamarked form inside a longer marked text (a tool result's line).
func shownElsewhere(secs *sections, sec int, text string) bool {
	forms := []string{text}
	if raw := spotlight.Unmark(text); raw != text {
		forms = []string{raw, spotlight.Datamark(raw)}
	}
	for other, bs := range secs {
		if other != sec && lo.ContainsBy(bs, func(b bullet) bool {
			return lo.ContainsBy(forms, func(f string) bool { return strings.Contains(b.text, f) })
		}) {
			return true
		}
	}
	return false
}

func render(secs *sections) string {
	var b strings.Builder
	for sec, bs := range secs {
		if sec > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(headings[sec])
		b.WriteString("\n")
		if len(bs) == 0 {
			b.WriteString(noneText)
			continue
		}
		for i, bl := range bs {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(bulletMark)
			b.WriteString(bl.text)
		}
	}
	return b.String()
}

// digest is the fallback for transcripts shorter than the bare headings: the
// transcript on one line, cut to fit.
//
// The transcript holds tool output, so the digest is marked as data
// (spotlight.Mark) like every text the summarizer copies from a tool result;
// it is cut before it is marked, so the marking stays whole.
func digest(t string, limit int) string {
	d := defuse(collapse(t))
	for n := limit - 1; n >= 1; {
		q := spotlight.Mark(cut(d, n))
		over := runeLen(q) - (limit - 1)
		if over <= 0 {
			return q
		}
		n -= over
	}
	return "…"
}
