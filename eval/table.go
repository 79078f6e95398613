package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Table renders results as Markdown: one row per trajectory and a total,
// then survival per fact kind.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| trajectory | steps | messages | compactions | rounds | tokens uncompacted | tokens final | saved | facts replaced | facts kept | identifiers replaced | identifiers kept |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var tot Result
	kinds := map[FactKind][2]int{}
	for _, r := range results {
		row(&b, r.Name, r)
		tot.Steps += r.Steps
		tot.Messages += r.Messages
		tot.Compactions += r.Compactions
		tot.Rounds += r.Rounds
		tot.TokensFull += r.TokensFull
		tot.TokensFinal += r.TokensFinal
		tot.FactsReplaced += r.FactsReplaced
		tot.FactsSurvived += r.FactsSurvived
		tot.IDsReplaced += r.IDsReplaced
		tot.IDsSurvived += r.IDsSurvived
		for k, v := range r.ByKind {
			c := kinds[k]
			kinds[k] = [2]int{c[0] + v[0], c[1] + v[1]}
		}
	}
	row(&b, "**all**", tot)

	b.WriteString("\n| fact kind | replaced | kept verbatim | survival |\n| --- | ---: | ---: | ---: |\n")
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, string(k))
	}
	slices.Sort(names)
	for _, k := range names {
		c := kinds[FactKind(k)]
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", k, c[0], c[1], pct(c[1], c[0]))
	}
	return b.String()
}

func row(b *strings.Builder, name string, r Result) {
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %s | %d | %s | %d | %s |\n",
		name, r.Steps, r.Messages, r.Compactions, r.Rounds, r.TokensFull, r.TokensFinal,
		pct(r.TokensFull-r.TokensFinal, r.TokensFull),
		r.FactsReplaced, pct(r.FactsSurvived, r.FactsReplaced),
		r.IDsReplaced, pct(r.IDsSurvived, r.IDsReplaced))
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}
