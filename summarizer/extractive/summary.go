package extractive

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/samber/lo"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/internal/spotlight"
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
// once. Identifiers longer than a bullet may be are dropped, not cut. Each is
// marked as data (spotlight.Mark), since most come from tool results: an
// identifier without blanks stays as it is, an error string is quoted with ˆ
// for its blanks.
func (s *Summarizer) addIdentifiers(secs *sections, t string, entries []entry) {
	if len(s.cfg.Extractors) == 0 {
		return
	}
	for _, m := range extract(t, s.cfg.Extractors) {
		age := sort.Search(len(entries), func(i int) bool { return entries[i].start > m.Start }) - 1
		// Earlier summaries' bullets, added before, are written already;
		// values just extracted are raw, and marked here.
		secs.add(secIdentifiers, max(age, 0), spotlight.Mark(defuse(m.Value)))
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
// or else the last assistant text. After a boundary entry only what follows
// it counts: an earlier turn's open end is not the current request's.
func addUnresolved(secs *sections, entries []entry, line func(string) string) {
	lastUser, lastAsst := -1, -1
	from := boundaryAt(entries)
	for i, e := range entries {
		switch {
		case i < from:
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

// dedupe keeps the first bullet of each text, in order.
func dedupe(bs []bullet) []bullet {
	return lo.UniqBy(bs, func(b bullet) string { return b.text })
}

// extract is identifiers.Extract over t, reading marked text (an earlier
// summary's quotes of tool output) unmarked: the extractors split at blanks,
// which marking replaced, so over the marked form they find values with the
// marks stuck to them ("ˆ/tmp/a.go", a URL running on to "ˆstatus»"). Those
// are left out, and each marked text is read again unmarked, its values
// placed where it starts.
func extract(t string, extractors []identifiers.Extractor) []identifiers.Match {
	all := identifiers.Extract(t, extractors)
	if !spotlight.Holds(t) {
		return all
	}
	out := all[:0]
	for _, m := range all {
		if !spotlight.HasMarks(m.Value) {
			out = append(out, m)
		}
	}
	for start, end := range spotlight.Spans(t) {
		for _, m := range identifiers.Extract(spotlight.Unmark(t[start:end]), extractors) {
			m.Start = start
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b identifiers.Match) int { return cmp.Compare(a.Start, b.Start) })
	return out
}
