package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Labeled is the results of one compactor configuration over the corpus.
type Labeled struct {
	Label   string
	Results []Result
}

// Total sums results into one Result named "all"; ByKind is merged.
func Total(results []Result) Result {
	tot := Result{Name: "all", ByKind: map[FactKind][2]int{}}
	for _, r := range results {
		tot.Steps += r.Steps
		tot.Messages += r.Messages
		tot.FactsPlanted += r.FactsPlanted
		tot.FactsReplaced += r.FactsReplaced
		tot.FactsSurvived += r.FactsSurvived
		tot.IDsReplaced += r.IDsReplaced
		tot.IDsSurvived += r.IDsSurvived
		tot.LedgerIDs += r.LedgerIDs
		tot.LedgerIDsKept += r.LedgerIDsKept
		tot.Ledger.Found += r.Ledger.Found
		tot.Ledger.Survived += r.Ledger.Survived
		tot.Ledger.Appended += r.Ledger.Appended
		tot.Ledger.Dropped += r.Ledger.Dropped
		tot.TokensFull += r.TokensFull
		tot.TokensFinal += r.TokensFinal
		tot.TokensMarking += r.TokensMarking
		tot.LedgerIDsMarked += r.LedgerIDsMarked
		tot.Compactions += r.Compactions
		tot.Rounds += r.Rounds
		tot.FailedRounds += r.FailedRounds
		tot.RefusedRounds += r.RefusedRounds
		tot.Recall.Probes += r.Recall.Probes
		tot.Recall.FromSummary += r.Recall.FromSummary
		tot.Recall.Read.add(r.Recall.Read)
		tot.Recall.Search.add(r.Recall.Search)
		for k, v := range r.ByKind {
			c := tot.ByKind[k]
			tot.ByKind[k] = [2]int{c[0] + v[0], c[1] + v[1]}
		}
	}
	return tot
}

// Summary renders one row of corpus totals per configuration: tokens,
// rounds, the ledger's own counts (Round.Identifiers summed over rounds) and
// survival in the final conversation.
func Summary(runs []Labeled) string {
	var b strings.Builder
	b.WriteString("| configuration | compactions | rounds | refused | tokens uncompacted | tokens final | saved | ledger found | kept by summary (before repair) | appended | dropped | ledger identifiers replaced | kept in final conversation | all identifiers kept | facts kept |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, run := range runs {
		t := Total(run.Results)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %d | %d (%s) | %d | %d | %d | %d (%s) | %s | %s |\n",
			run.Label, t.Compactions, t.Rounds, t.RefusedRounds, t.TokensFull, t.TokensFinal, pct(t.TokensFull-t.TokensFinal, t.TokensFull),
			t.Ledger.Found, t.Ledger.Survived, pct(t.Ledger.Survived, t.Ledger.Found), t.Ledger.Appended, t.Ledger.Dropped,
			t.LedgerIDs, t.LedgerIDsKept, pct(t.LedgerIDsKept, t.LedgerIDs),
			pct(t.IDsSurvived, t.IDsReplaced), pct(t.FactsSurvived, t.FactsReplaced))
	}
	return b.String()
}

// Marking renders, per configuration, what marking tool text as data costs
// in the final conversations and how many kept identifiers are there only in
// their marked form.
func Marking(runs []Labeled) string {
	var b strings.Builder
	b.WriteString("| configuration | tokens final | of which marking | share | ledger identifiers kept | of which only marked |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, run := range runs {
		t := Total(run.Results)
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %d (%s) |\n", run.Label, t.TokensFinal, t.TokensMarking,
			pct(t.TokensMarking, t.TokensFinal), t.LedgerIDsKept, t.LedgerIDsMarked, pct(t.LedgerIDsMarked, t.LedgerIDsKept))
	}
	return b.String()
}

// Kinds renders fact survival per kind, one column per configuration: the
// share kept verbatim of the facts that configuration's compactions replaced.
func Kinds(runs []Labeled) string {
	var b strings.Builder
	b.WriteString("| fact kind |")
	for _, run := range runs {
		fmt.Fprintf(&b, " kept: %s |", run.Label)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" ---: |", len(runs)) + "\n")
	totals := make([]Result, len(runs))
	var names []string
	for i, run := range runs {
		totals[i] = Total(run.Results)
		for k := range totals[i].ByKind {
			if !slices.Contains(names, string(k)) {
				names = append(names, string(k))
			}
		}
	}
	slices.Sort(names)
	for _, k := range names {
		// Runs replace different messages, so each cell has its own count.
		fmt.Fprintf(&b, "| %s |", k)
		for _, t := range totals {
			c := t.ByKind[FactKind(k)]
			fmt.Fprintf(&b, " %s of %d |", pct(c[1], c[0]), c[0])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Table renders results as Markdown: one row per trajectory and a total.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| trajectory | steps | messages | compactions | rounds | tokens uncompacted | tokens final | saved | facts replaced | facts kept | identifiers replaced | identifiers kept | ledger identifiers replaced | kept | ledger dropped |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		row(&b, r.Name, r)
	}
	row(&b, "**all**", Total(results))
	return b.String()
}

func row(b *strings.Builder, name string, r Result) {
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %s | %d | %s | %d | %s | %d | %s | %d |\n",
		name, r.Steps, r.Messages, r.Compactions, r.Rounds, r.TokensFull, r.TokensFinal,
		pct(r.TokensFull-r.TokensFinal, r.TokensFull),
		r.FactsReplaced, pct(r.FactsSurvived, r.FactsReplaced),
		r.IDsReplaced, pct(r.IDsSurvived, r.IDsReplaced),
		r.LedgerIDs, pct(r.LedgerIDsKept, r.LedgerIDs), r.Ledger.Dropped)
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}
