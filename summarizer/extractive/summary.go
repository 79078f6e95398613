package extractive

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// summarize turns a transcript into the summary text. The result is always
// shorter than t in code points; t must hold at least two.
func (s *Summarizer) summarize(ctx context.Context, t string) (string, error) {
	entries := parseEntries(t)
	secs := s.collect(entries)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.addIdentifiers(&secs, t, entries)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	addUnresolved(&secs, entries, s.line)
	s.applyCaps(&secs)
	limit := runeLen(t)
	if out, ok := fit(&secs, limit); ok {
		return out, nil
	}
	return digest(t, limit), nil
}

// addIdentifiers appends what the extractors find. Earlier summaries'
// identifiers are already in the section and come first; a value is listed
// once. Identifiers longer than a bullet may be are dropped, not cut.
func (s *Summarizer) addIdentifiers(secs *sections, t string, entries []entry) {
	if len(s.cfg.Extractors) == 0 {
		return
	}
	for _, m := range identifiers.Extract(t, s.cfg.Extractors) {
		age := sort.Search(len(entries), func(i int) bool { return entries[i].start > m.Start }) - 1
		secs.add(secIdentifiers, max(age, 0), m.Value)
		if m.Kind == identifiers.KindToolCallID {
			// The calls they name are being replaced, so these ids matter
			// less to the agent than paths, hashes or errors.
			secs[secIdentifiers][len(secs[secIdentifiers])-1].spare = true
		}
	}
	kept := secs[secIdentifiers][:0]
	for _, b := range secs[secIdentifiers] {
		if runeLen(b.text) <= s.cfg.MaxLineRunes && !strings.ContainsAny(b.text, "\n\r") {
			b.text = defuse(b.text)
			kept = append(kept, b)
		}
	}
	secs[secIdentifiers] = kept
}

// addUnresolved adds the last user request that no assistant text followed,
// or else the last assistant text.
func addUnresolved(secs *sections, entries []entry, line func(string) string) {
	lastUser, lastAsst := -1, -1
	for i, e := range entries {
		switch {
		case e.kind == entryUser && !isEmptyContent(firstLine(e.text)):
			lastUser = i
		case e.kind == entryAssistant && !isEmptyContent(firstLine(e.text)):
			lastAsst = i
		}
	}
	switch {
	case lastUser >= 0 && lastAsst < lastUser:
		secs.add(secUnresolved, lastUser, line(firstLine(entries[lastUser].text)))
	case lastAsst >= 0:
		secs.add(secUnresolved, lastAsst, line(firstLine(entries[lastAsst].text)))
	}
}

// applyCaps removes duplicates (keeping the first) and keeps each section's
// newest bullets up to its cap; Objective keeps its first bullet too, the
// original request, and Identifiers gives up tool-call ids before anything
// else.
func (s *Summarizer) applyCaps(secs *sections) {
	caps := [numSections]int{s.cfg.MaxObjective, s.cfg.MaxDecisions, s.cfg.MaxWork, s.cfg.MaxIdentifiers, s.cfg.MaxUnresolved}
	for sec := range secs {
		bs := dropSpare(dedupe(secs[sec]), caps[sec])
		if n := caps[sec]; len(bs) > n {
			if sec == secObjective {
				bs = append(bs[:1:1], bs[len(bs)-(n-1):]...)
			} else {
				bs = bs[len(bs)-n:]
			}
		}
		for i := range bs {
			bs[i].runes = runeLen(bs[i].text)
		}
		secs[sec] = bs
	}
}

// dropSpare removes the oldest spare bullets until at most n are left or no
// spare one is.
func dropSpare(bs []bullet, n int) []bullet {
	excess := len(bs) - n
	if excess <= 0 {
		return bs
	}
	out := make([]bullet, 0, len(bs))
	for _, b := range bs {
		if b.spare && excess > 0 {
			excess--
			continue
		}
		out = append(out, b)
	}
	return out
}

func dedupe(bs []bullet) []bullet {
	seen := make(map[string]struct{}, len(bs))
	out := make([]bullet, 0, len(bs))
	for _, b := range bs {
		if _, dup := seen[b.text]; !dup {
			seen[b.text] = struct{}{}
			out = append(out, b)
		}
	}
	return out
}

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

// fit renders secs if it can be made shorter than limit code points,
// dropping the oldest bullets first (ties: Work, Identifiers, Decisions,
// Objective, Unresolved). It reports false when even the bare headings are
// too long.
func fit(secs *sections, limit int) (string, bool) {
	total := size(secs)
	if total >= limit {
		dropRepeats(secs)
		total = size(secs)
	}
	if total >= limit {
		type ref struct{ sec, idx int }
		var all []ref
		for sec, bs := range secs {
			for i := range bs {
				all = append(all, ref{sec, i})
			}
		}
		dropOrder := [numSections]int{secObjective: 3, secDecisions: 2, secWork: 0, secIdentifiers: 1, secUnresolved: 4}
		slices.SortStableFunc(all, func(a, b ref) int {
			if d := secs[a.sec][a.idx].age - secs[b.sec][b.idx].age; d != 0 {
				return d
			}
			if d := dropOrder[a.sec] - dropOrder[b.sec]; d != 0 {
				return d
			}
			return a.idx - b.idx
		})
		var drop [numSections]map[int]bool
		left := [numSections]int{}
		for sec := range secs {
			left[sec] = len(secs[sec])
			drop[sec] = map[int]bool{}
		}
		for _, r := range all {
			if total < limit {
				break
			}
			b := secs[r.sec][r.idx]
			total -= len(bulletMark) + b.runes
			if left[r.sec] > 1 {
				total-- // the newline before or after it
			} else {
				total += len(noneText)
			}
			left[r.sec]--
			drop[r.sec][r.idx] = true
		}
		for sec := range secs {
			kept := secs[sec][:0]
			for i, b := range secs[sec] {
				if !drop[sec][i] {
					kept = append(kept, b)
				}
			}
			secs[sec] = kept
		}
	}
	if total >= limit {
		return "", false
	}
	out := render(secs)
	if runeLen(out) >= limit {
		return "", false
	}
	return out, true
}

// dropRepeats removes bullets whose whole text another section already
// shows (an identifier inside a tool call bullet, a request that is both the
// objective and a decision), so the budget loses words, not facts. Unresolved
// is never thinned; the others are, in the order Identifiers, Decisions,
// Work, Objective.
func dropRepeats(secs *sections) {
	for _, sec := range []int{secIdentifiers, secDecisions, secWork, secObjective} {
		kept := secs[sec][:0]
		for _, b := range secs[sec] {
			if !shownElsewhere(secs, sec, b.text) {
				kept = append(kept, b)
			}
		}
		secs[sec] = kept
	}
}

func shownElsewhere(secs *sections, sec int, text string) bool {
	for other, bs := range secs {
		if other == sec {
			continue
		}
		for _, b := range bs {
			if strings.Contains(b.text, text) {
				return true
			}
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
func digest(t string, limit int) string {
	d := defuse(collapse(t))
	if runeLen(d) < limit {
		return d
	}
	return cut(d, limit-1)
}

// errTooShort is returned for a transcript with fewer than two code points
// of text: nothing shorter can say anything about it.
func errTooShort(n int) error {
	return fmt.Errorf("%w (%d code points)", ErrNothingToSummarize, n)
}
