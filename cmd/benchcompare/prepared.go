package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/einocompact/einocompact/bench"
)

// defaultPrepareAt is the PrepareAt the simulation measures by default: the
// value docs/benchmarks.md reports and the fx config and demo default to.
const defaultPrepareAt = 0.45

// Indices of the strategies in a simulation's results.
const (
	idxOurs     = 0
	idxEino     = 1
	idxPrepared = 2
)

// stalls pools the stall of every compaction of strategy i over all seeds.
func stalls(sr shapeRuns, i int) []float64 {
	var out []float64
	for _, res := range sr.runs {
		for _, c := range res[i].Compactions {
			out = append(out, float64(c.Stall))
		}
	}
	slices.Sort(out)
	return out
}

// percentile of sorted values, nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// inputWithUnused is a run's summarizer input, prepared compactions never
// applied included.
func inputWithUnused(r *bench.SimResult) float64 {
	n := 0
	for _, c := range r.Compactions {
		n += c.InputTokens
	}
	for _, c := range r.Unused {
		n += c.InputTokens
	}
	return float64(n)
}

// preparedReport compares, per shape, how long the agent waits for
// compaction without and with PrepareAt, and checks the targets of issue 12.
func preparedReport(all []shapeRuns, window int) string {
	if len(all) == 0 || len(all[0].runs) == 0 || len(all[0].runs[0]) <= idxPrepared {
		return ""
	}
	prepareAt := all[0].runs[0][idxPrepared].Config.PrepareAt
	var b strings.Builder
	fmt.Fprintf(&b, "#### Prepared compaction (prepare_at %v)\n\n", prepareAt)
	fmt.Fprintf(&b, "Simulated time: the main model answers after %s + %s per prompt token + %s per completion token, a step with tool calls "+
		"spends %s in its tools, and a compaction prepared in the background runs its summarizer calls one after another from the model call "+
		"that started it while the agent goes on, and is finished for the hook only once the simulated clock has passed its end. A call at the trigger "+
		"goes out uncompacted while it is written, up to the ceiling halfway from compact_at to the window; a call at the ceiling waits for whatever "+
		"of it is left. Stalls are pooled over the %d seeds.\n\n",
		bench.ModelLatency(0, 0), bench.ModelLatency(1, 0)-bench.ModelLatency(0, 0), bench.ModelLatency(0, 1)-bench.ModelLatency(0, 0), bench.ToolTime, len(simSeeds))
	type target struct {
		shape                              bench.Shape
		med, p95, input, time              float64
		peak                               float64
		medOK, p95OK, inOK, timeOK, peakOK bool
	}
	var targets []target
	for _, sr := range all {
		fmt.Fprintf(&b, "##### %s\n\n| per run | einocompact | einocompact, prepare_at %v | Eino | prepared / Eino |\n|---|---:|---:|---:|---:|\n", sr.shape, prepareAt)
		line := func(label string, vals [3]float64, format func(float64) string) {
			ratio := "–"
			if vals[idxEino] != 0 {
				ratio = fmt.Sprintf("%.2f", vals[idxPrepared]/vals[idxEino])
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", label, format(vals[idxOurs]), format(vals[idxPrepared]), format(vals[idxEino]), ratio)
		}
		each := func(f func(i int) float64) [3]float64 { return [3]float64{f(0), f(1), f(2)} }
		secs := func(v float64) string { return fmt.Sprintf("%.1f s", v/float64(time.Second)) }
		count := func(v float64) string { return fmt.Sprintf("%.0f", v) }
		med := each(func(i int) float64 { return percentile(stalls(sr, i), 50) })
		p95 := each(func(i int) float64 { return percentile(stalls(sr, i), 95) })
		line("stall per compaction, median", med, secs)
		line("stall per compaction, p95", p95, secs)
		line("stall per compaction, max", each(func(i int) float64 { return percentile(stalls(sr, i), 100) }), secs)
		wall := each(func(i int) float64 {
			return median(acrossRes(sr, i, func(r *bench.SimResult) float64 { return float64(r.Time) }))
		})
		line("simulated run time", wall, secs)
		input := each(func(i int) float64 { return median(acrossRes(sr, i, inputWithUnused)) })
		line("summarizer input tokens, total (unused preparations included)", input, count)
		peak := each(func(i int) float64 {
			return slices.Max(acrossRes(sr, i, func(r *bench.SimResult) float64 { return float64(statsOf(r).peak) }))
		})
		line("peak context, max", peak, count)
		applied, late, discarded, deferred := 0, 0, 0, 0
		for _, res := range sr.runs {
			deferred += res[idxPrepared].Deferred
			for _, c := range res[idxPrepared].Compactions {
				if c.Prepared {
					applied++
				}
				if c.Late {
					late++
				}
			}
			discarded += res[idxPrepared].Discarded
		}
		fmt.Fprintf(&b, "\nOver the %d seeds, prepared results applied: %d, of which still being written when a call at the ceiling needed them (the call waited for the rest): %d; "+
			"discarded or unused when the run ended: %d. Calls at the trigger that went out uncompacted while the summary was written (below the ceiling): %d.\n\n",
			len(sr.runs), applied, late, discarded, deferred)
		t := target{shape: sr.shape, med: med[idxPrepared] / med[idxEino], p95: p95[idxPrepared] / p95[idxEino],
			input: input[idxPrepared] / input[idxEino], time: wall[idxPrepared] / wall[idxEino], peak: peak[idxPrepared] / float64(window)}
		t.medOK, t.p95OK, t.inOK, t.timeOK, t.peakOK = t.med <= 0.05, t.p95 <= 0.2, t.input <= 1.1, t.time < 1, peak[idxPrepared] <= float64(window)
		targets = append(targets, t)
	}
	fmt.Fprintf(&b, "##### Targets of prepared compaction (compact_at 0.7, compact_to 0.4, prepare_at %v)\n\n| target | shape | prepared / Eino | met |\n|---|---|---|---|\n", prepareAt)
	for _, t := range targets {
		fmt.Fprintf(&b, "| median stall at most 5 %% of Eino's | %s | %.3f | %s |\n", t.shape, t.med, yes(t.medOK))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| p95 stall at most 20 %% of Eino's | %s | %.3f | %s |\n", t.shape, t.p95, yes(t.p95OK))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| total summarizer input at most 1.1x Eino's | %s | %.3f | %s |\n", t.shape, t.input, yes(t.inOK))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| total simulated run time below Eino's | %s | %.3f | %s |\n", t.shape, t.time, yes(t.timeOK))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| the peak never above the window | %s | peak %.0f %% of the window | %s |\n", t.shape, 100*t.peak, yes(t.peakOK))
	}
	b.WriteString("\n")
	return b.String()
}

// acrossRes applies f to every seed's result of strategy i.
func acrossRes(sr shapeRuns, i int, f func(*bench.SimResult) float64) []float64 {
	out := make([]float64, len(sr.runs))
	for k, res := range sr.runs {
		out[k] = f(res[i])
	}
	return out
}
