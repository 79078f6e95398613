package extractive

import (
	"strings"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// foldSummary adds an earlier summary's bullets to the sections they came
// from. Headings are matched by their first word, so "## Identifiers
// (verbatim)" from the identifier ledger lands in Identifiers; text under no
// heading or an unknown one counts as work completed. "(none)" lines are
// skipped. A bullet's marker ("- ", "* ", "+ ") is dropped; other lines are
// taken whole.
func foldSummary(out *sections, age int, text string, line func(string) string) {
	sec := secWork
	for raw := range strings.Lines(text) {
		l := strings.TrimSpace(raw)
		if h, ok := strings.CutPrefix(l, "## "); ok {
			sec = sectionOf(h)
			continue
		}
		for _, m := range []string{"- ", "* ", "+ "} {
			if rest, ok := strings.CutPrefix(l, m); ok {
				l = strings.TrimSpace(rest)
				break
			}
		}
		if l == "" || l == "(none)" || l == spotlight.Note {
			// The note on marked text belongs to the summary message, which
			// the compactor writes it into, not to a section.
			continue
		}
		if sec == secIdentifiers {
			out.add(sec, age, l)
			continue
		}
		out.add(sec, age, line(l))
	}
}

func sectionOf(heading string) int {
	h := strings.ToLower(heading)
	for _, c := range []struct {
		word string
		sec  int
	}{
		{"objective", secObjective},
		{"decisions", secDecisions},
		{"work", secWork},
		{"identifiers", secIdentifiers},
		{"unresolved", secUnresolved},
	} {
		if strings.HasPrefix(h, c.word) {
			return c.sec
		}
	}
	return secWork
}
