package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/bench"
)

// blockArchive is the generated block of docs/benchmarks.md with the bill
// of forgetting with and without the archive (issue 33 item 4).
const blockArchive = "archive"

// archiveSuffix marks a strategy run with SimConfig.Archive, whose
// recalls return the whole archived entry; searchSuffix the same run billed
// with BillConfig.RecallSearch, recalls returning only what the agent needs.
const (
	archiveSuffix = " + archive"
	searchSuffix  = ", recall by search"
)

// archiveStrategies are einocompact's strategies of the bill's targets
// (CacheAligned for the agent's model, the default for a separate
// summarizer), each run without and with the archive; Eino has none.
var archiveStrategies = []string{bench.StrategyAligned, bench.StrategyEinocompact}

// archiveRows are the rows of the table, in order.
func archiveRows() []string {
	rows := []string{bench.StrategyEino}
	for _, s := range archiveStrategies {
		rows = append(rows, s, s+archiveSuffix, s+archiveSuffix+searchSuffix)
	}
	return rows
}

// archiveColumns price the runs: the bill's OpenAI-like column without
// forgetting, which shows what the archive's pointers and the recall
// tool's schema cost by themselves, and its two forgetting columns.
func archiveColumns() []billColumn {
	return []billColumn{billColumns[1], billColumns[5], billColumns[6]}
}

// archiveSeed is one seed's bills, by row and then column label.
type archiveSeed map[string]map[string]bench.Bill

// runArchiveBills runs, for every shape and seed, Eino and
// archiveStrategies without the archive, archiveStrategies with it, and
// bills them in archiveColumns.
func runArchiveBills(ctx context.Context, steps, window int) (map[bench.Shape][]archiveSeed, error) {
	out := map[bench.Shape][]archiveSeed{}
	for _, shape := range bench.Shapes {
		for _, seed := range simSeeds {
			cfg := bench.SimConfig{Shape: shape, Steps: steps, Window: window, Seed: seed,
				Strategies: append([]string{bench.StrategyEino}, archiveStrategies...)}
			plain, err := bench.Simulate(ctx, cfg)
			if err != nil {
				return nil, err
			}
			cfg.Strategies, cfg.Archive = archiveStrategies, true
			archived, err := bench.Simulate(ctx, cfg)
			if err != nil {
				return nil, fmt.Errorf("with the archive: %w", err)
			}
			for _, r := range archived {
				r.Strategy += archiveSuffix
			}
			_, script := bench.Trajectory(shape, steps, window, seed)
			recalls := bench.Recalls(script, seed)
			bills := archiveSeed{}
			for _, r := range append(plain, archived...) {
				bills[r.Strategy] = map[string]bench.Bill{}
				searched := map[string]bench.Bill{}
				for _, c := range archiveColumns() {
					cfg := c.config(recalls, nil)
					bills[r.Strategy][c.label] = bench.BillOf(r, cfg)
					cfg.RecallSearch = true
					searched[c.label] = bench.BillOf(r, cfg)
				}
				if strings.HasSuffix(r.Strategy, archiveSuffix) {
					bills[r.Strategy+searchSuffix] = searched
				}
				r.ReleaseRequests()
			}
			out[shape] = append(out[shape], bills)
		}
	}
	return out, nil
}

// archiveReport prints, per shape, each row's bills over Eino's and what
// forgetting cost it: facts forgotten, how many of them the recall tool
// brought back, the extra calls and the tokens the recalls returned.
func archiveReport(all map[bench.Shape][]archiveSeed, steps, window int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d model calls per trajectory, window %d tokens, %d seeds per shape; medians over the seeds (a ratio is the median of the per-seed ratios to Eino's bill). "+
		"Forgetting uses the rule \"%s\" with %s; with the archive, a forgotten fact an archived entry holds is brought back by recall calls instead.\n\n",
		steps, window, len(simSeeds), bench.DefaultForgetRule.Name, recallSchedule())
	cols := archiveColumns()
	forgetting := cols[1]
	for _, shape := range bench.Shapes {
		seeds := all[shape]
		fmt.Fprintf(&b, "#### Forgetting with the archive: %s\n\n", shape)
		b.WriteString("| strategy |")
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", c.label)
		}
		b.WriteString(" forgotten facts (OpenAI-like, forgetting) | of them recalled | extra calls | recall calls | tokens returned per recalled fact |\n|---|")
		b.WriteString(strings.Repeat("---:|", len(cols)+5))
		b.WriteString("\n")
		for _, row := range archiveRows() {
			med := func(f func(archiveSeed) float64) float64 {
				vs := make([]float64, len(seeds))
				for i, s := range seeds {
					vs[i] = f(s)
				}
				return median(vs)
			}
			fmt.Fprintf(&b, "| %s |", row)
			for _, c := range cols {
				cost := med(func(s archiveSeed) float64 { return s[row][c.label].Cost })
				ratio := med(func(s archiveSeed) float64 { return s[row][c.label].Cost / s[bench.StrategyEino][c.label].Cost })
				fmt.Fprintf(&b, " %s (%.2f) |", kilo(cost), ratio)
			}
			bill := func(s archiveSeed) bench.Bill { return s[row][forgetting.label] }
			perFact := med(func(s archiveSeed) float64 {
				x := bill(s)
				if x.Recalled == 0 {
					return 0
				}
				return float64(x.RecallTokens) / float64(x.Recalled)
			})
			fmt.Fprintf(&b, " %.0f | %.0f | %.0f | %.0f | %.0f |\n",
				med(func(s archiveSeed) float64 { return float64(bill(s).Forgotten) }),
				med(func(s archiveSeed) float64 { return float64(bill(s).Recalled) }),
				med(func(s archiveSeed) float64 { return float64(bill(s).ExtraCalls) }),
				med(func(s archiveSeed) float64 { return float64(bill(s).RecallCalls) }),
				perFact)
		}
		b.WriteString("\n")
	}
	return b.String()
}
