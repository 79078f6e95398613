package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// simSeeds are the trajectories replayed per shape; the tables quote the
// median over them, and the plot shows the first.
var simSeeds = []uint64{1, 2, 3, 4, 5}

// simRepeats is how often each run is repeated to take the median wall time;
// everything else is deterministic.
const simRepeats = 3

// plotFile is the plot's name inside the docs directory.
const plotFile = "benchcompare.svg"

// shapeRuns are the results of one shape: per seed, einocompact then Eino.
type shapeRuns struct {
	shape bench.Shape
	runs  [][]*bench.SimResult
}

func runSimulation(steps, window int, prepareAt float64, docs string, stdout io.Writer) error {
	ctx := context.Background()
	// One unmeasured run first, so that no strategy pays for the process
	// warming up (page faults, first use of Eino's JSON encoder).
	if _, err := bench.Simulate(ctx, bench.SimConfig{Shape: bench.Shapes[0], Steps: steps, Window: window, Seed: simSeeds[0]}); err != nil {
		return err
	}
	var all []shapeRuns
	for _, shape := range bench.Shapes {
		sr := shapeRuns{shape: shape}
		for _, seed := range simSeeds {
			cfg := bench.SimConfig{Shape: shape, Steps: steps, Window: window, Seed: seed, PrepareAt: prepareAt}
			res, err := simulateMedianWall(ctx, cfg)
			if err != nil {
				return err
			}
			sr.runs = append(sr.runs, res)
		}
		all = append(all, sr)
	}
	bills, err := runBills(ctx, steps, window, prepareAt, 0)
	if err != nil {
		return err
	}
	bill := billReport(bills, steps, window)
	fmt.Fprintln(stdout, bill)
	ttlRuns, ttlCosts, err := runTTL(ctx, steps, window, prepareAt)
	if err != nil {
		return err
	}
	ttl := ttlReport(ttlRuns, ttlCosts, steps, window)
	fmt.Fprintln(stdout, ttl)
	archived, err := runArchiveBills(ctx, steps, window)
	if err != nil {
		return err
	}
	archive := archiveReport(archived, steps, window)
	fmt.Fprintln(stdout, archive)
	targets := targets32Table(bills, ttlCosts)
	fmt.Fprintln(stdout, targets)
	report := simReport(all, steps, window, docs != "")
	fmt.Fprintln(stdout, report)
	room := roomReport(all, window)
	fmt.Fprintln(stdout, room)
	if docs == "" {
		return nil
	}
	if err := updateDoc(docPath(docs), blockBill, "Measured on "+machine()+".\n\n"+bill); err != nil {
		return err
	}
	if err := updateDoc(docPath(docs), blockTTL, "Measured on "+machine()+".\n\n"+ttl); err != nil {
		return err
	}
	if err := updateDoc(docPath(docs), blockRoom, "Measured on "+machine()+".\n\n"+room); err != nil {
		return err
	}
	if err := updateDoc(docPath(docs), blockArchive, "Measured on "+machine()+".\n\n"+archive); err != nil {
		return err
	}
	if err := updateDoc(docPath(docs), blockTargets32, "Measured on "+machine()+".\n\n"+targets); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(docs, plotFile), []byte(plotSVG(all, window)), 0o644); err != nil {
		return err
	}
	return updateDoc(docPath(docs), blockSimulation, "Measured on "+machine()+".\n\n"+report)
}

// simulateMedianWall runs cfg simRepeats times and keeps the first results
// with the median wall time of each strategy.
func simulateMedianWall(ctx context.Context, cfg bench.SimConfig) ([]*bench.SimResult, error) {
	var first []*bench.SimResult
	walls := map[string][]float64{}
	for range simRepeats {
		res, err := bench.Simulate(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = res
		}
		for _, r := range res {
			walls[r.Strategy] = append(walls[r.Strategy], float64(r.Wall))
		}
	}
	for _, r := range first {
		r.Wall = time.Duration(median(walls[r.Strategy]))
		r.ReleaseRequests() // these runs are not billed
	}
	return first, nil
}

// runStats are the per-run figures the tables are made of.
type runStats struct {
	compactions, calls                int
	inputTotal, outputTotal           int
	inputMedian, inputMax             float64
	stallMedian, stallMax             time.Duration
	promptTotal, peak                 int
	retainedMin, retainedMedian       float64
	wall                              time.Duration
	stepsOverWindow, compactionsUnder int // steps above the window; compactions retaining < 25 % of it
}

func statsOf(r *bench.SimResult) runStats {
	s := runStats{compactions: len(r.Compactions), wall: r.Wall, retainedMin: -1}
	var inputs, stalls, retained []float64
	for _, c := range r.Compactions {
		s.calls += len(c.Calls)
		s.inputTotal += c.InputTokens
		s.outputTotal += c.OutputTokens
		inputs = append(inputs, float64(c.InputTokens))
		stalls = append(stalls, float64(c.Stall))
		retained = append(retained, float64(c.Retained))
		if 5*c.Retained < r.Config.Window {
			s.compactionsUnder++
		}
	}
	s.inputMedian, s.inputMax = median(inputs), maxOf(inputs)
	s.stallMedian, s.stallMax = time.Duration(median(stalls)), time.Duration(maxOf(stalls))
	if len(retained) > 0 {
		s.retainedMin, s.retainedMedian = slices.Min(retained), median(retained)
	}
	for _, st := range r.Steps {
		s.promptTotal += st.Prompt
		s.peak = max(s.peak, st.Prompt)
		if st.Prompt > r.Config.Window {
			s.stepsOverWindow++
		}
	}
	return s
}

func maxOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs)
}

// across applies f to every seed's stats of strategy i and returns the values.
func across(sr shapeRuns, i int, f func(runStats) float64) []float64 {
	out := make([]float64, len(sr.runs))
	for k, res := range sr.runs {
		out[k] = f(statsOf(res[i]))
	}
	return out
}

func simReport(all []shapeRuns, steps, window int, withPlot bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Window %d tokens; einocompact: `CompactionHook` (compact_at 0.7, compact_to 0.4; its compactions go deep, keeping the newest 20.2 %% of the window verbatim, `Report.Deep`) with `SummarizationCompactor` in its defaults; "+
		"Eino: `summarization.New` with `Trigger.ContextTokens` = %d (0.7 of the window) and a `TokenCounter` that makes the hook's estimate, so both trigger at the same sizes. "+
		"%d model calls per trajectory, %d trajectories (seeds) per shape; every figure is the median over the seeds except the worst cases (max, min), which are over all of them. "+
		"Summarizer: %s.\n\n", window, int(float64(window)*0.7), steps, len(simSeeds), costModel())
	if withPlot {
		fmt.Fprintf(&b, "![Context size per model call, seed %d of each shape; markers are compactions](%s)\n\n", simSeeds[0], plotFile)
	}
	type targetRow struct {
		shape                     bench.Shape
		medRatio, totRatio        float64
		einoMedian                float64
		retainedMin               float64
		peakOurs, peakEino        float64
		under, overOurs, overEino int
	}
	var targets []targetRow
	for _, sr := range all {
		fmt.Fprintf(&b, "#### %s\n\n", sr.shape)
		b.WriteString("| per run | einocompact | Eino | einocompact / Eino |\n|---|---:|---:|---:|\n")
		row := func(label string, f func(runStats) float64, format func(float64) string) (float64, float64) {
			o, e := median(across(sr, 0, f)), median(across(sr, 1, f))
			ratio := "–"
			if e != 0 {
				ratio = fmt.Sprintf("%.2f", o/e)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, format(o), format(e), ratio)
			return o, e
		}
		worst := func(label string, pick func([]float64) float64, f func(runStats) float64, format func(float64) string) (float64, float64) {
			o, e := pick(across(sr, 0, f)), pick(across(sr, 1, f))
			ratio := "–"
			if e != 0 {
				ratio = fmt.Sprintf("%.2f", o/e)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, format(o), format(e), ratio)
			return o, e
		}
		tokens := func(v float64) string { return fmt.Sprintf("%.0f", v) }
		// One decimal, so a share just below a fifth does not read as 20 %.
		pct := func(v float64) string { return fmt.Sprintf("%.0f (%.1f %%)", v, 100*v/float64(window)) }
		secs := func(v float64) string { return fmt.Sprintf("%.1f s", v/1e9) }
		ms := func(v float64) string { return fmt.Sprintf("%.2f ms", v/1e6) }

		row("compactions", func(s runStats) float64 { return float64(s.compactions) }, tokens)
		row("summarizer calls", func(s runStats) float64 { return float64(s.calls) }, tokens)
		_, _ = row("summarizer input tokens, total", func(s runStats) float64 { return float64(s.inputTotal) }, tokens)
		row("summarizer input per compaction, median", func(s runStats) float64 { return s.inputMedian }, tokens)
		worst("summarizer input per compaction, max", slices.Max, func(s runStats) float64 { return s.inputMax }, tokens)
		row("summarizer output tokens, total", func(s runStats) float64 { return float64(s.outputTotal) }, tokens)
		row("stall per compaction (simulated), median", func(s runStats) float64 { return float64(s.stallMedian) }, secs)
		worst("stall per compaction (simulated), max", slices.Max, func(s runStats) float64 { return float64(s.stallMax) }, secs)
		row("main-model prompt tokens, total", func(s runStats) float64 { return float64(s.promptTotal) }, tokens)
		row("verbatim context after a compaction, median", func(s runStats) float64 { return s.retainedMedian }, pct)
		worst("verbatim context after a compaction, min", slices.Min, func(s runStats) float64 { return s.retainedMin }, pct)
		worst("peak context, max", slices.Max, func(s runStats) float64 { return float64(s.peak) }, pct)
		row("wall time excluding the summarizer", func(s runStats) float64 { return float64(s.wall) }, ms)
		b.WriteString("\n")
		b.WriteString(tierLine(sr, window))

		t := targetRow{shape: sr.shape}
		t.einoMedian = median(across(sr, 1, func(s runStats) float64 { return s.inputMedian }))
		t.medRatio = median(across(sr, 0, func(s runStats) float64 { return s.inputMedian })) / t.einoMedian
		t.totRatio = median(across(sr, 0, func(s runStats) float64 { return float64(s.inputTotal) })) / median(across(sr, 1, func(s runStats) float64 { return float64(s.inputTotal) }))
		t.retainedMin = slices.Min(across(sr, 0, func(s runStats) float64 { return s.retainedMin }))
		t.peakOurs = slices.Max(across(sr, 0, func(s runStats) float64 { return float64(s.peak) }))
		t.peakEino = slices.Max(across(sr, 1, func(s runStats) float64 { return float64(s.peak) }))
		for _, res := range sr.runs {
			so, se := statsOf(res[0]), statsOf(res[1])
			t.under += so.compactionsUnder
			t.overOurs += so.stepsOverWindow
			t.overEino += se.stepsOverWindow
		}
		targets = append(targets, t)
	}

	floor := minimalInput(window)
	b.WriteString(preparedReport(all, window))
	b.WriteString("#### Targets (compact_at 0.7, compact_to 0.4, 300 steps)\n\n| target | shape | measured | met |\n|---|---|---|---|\n")
	for _, t := range targets {
		fmt.Fprintf(&b, "| median summarizer input per compaction at most 0.55 of Eino's | %s | ratio %.2f (a single exact round would need %d tokens: %.2f) | %s |\n",
			t.shape, t.medRatio, floor, float64(floor)/t.einoMedian, yes(t.medRatio <= 0.55))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| total summarizer input no more than Eino's | %s | ratio %.3f | %s |\n", t.shape, t.totRatio, yes(t.totRatio <= 1))
	}
	for _, t := range targets {
		// One decimal: 6,390 of 32,000 tokens is 19.97 %, below a fifth,
		// and must not read as 20 %. Issue 13 asked for a quarter; issue
		// 23's deep compactions keep a fifth, the floor it sets.
		fmt.Fprintf(&b, "| at least a fifth of the window verbatim after every compaction | %s | min %.0f tokens (%.1f %%); %s below | %s |\n",
			t.shape, t.retainedMin, 100*t.retainedMin/float64(window), plural(t.under, "compaction"), yes(t.under == 0))
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "| the peak never above the window | %s | einocompact %.0f %%, Eino %.0f %% of the window | %s |\n",
			t.shape, 100*t.peakOurs/float64(window), 100*t.peakEino/float64(window), yes(t.overOurs == 0))
	}
	return b.String()
}

func costModel() string {
	small, large := 10000, 40000
	return fmt.Sprintf("writes %d tokens for a %d-token input and %d for %d (64 + input/8, at most 4096); "+
		"simulated latency 400 ms + 0.1 ms per input token + 1/60 s per output token (%.1f s and %.1f s for those), accounted, not slept",
		bench.OutputTokens(small), small, bench.OutputTokens(large), large,
		bench.Latency(small, bench.OutputTokens(small)).Seconds(), bench.Latency(large, bench.OutputTokens(large)).Seconds())
}

// minimalInput is the least summarizer input that can take a conversation
// from compact_at 0.7 to compact_to 0.4 of window in one round under the
// simulated cost model: the instruction and transcript frame are read on top
// of the replaced messages, and the summary written back takes part of the
// room freed. It ignores the tool-call ids the transcript adds, so it is a
// lower bound for any planner.
func minimalInput(window int) int {
	counter := compaction.DefaultCounter()
	frame, _ := counter.Count(context.Background(), []*schema.Message{
		schema.SystemMessage(compaction.DefaultSummaryInstruction),
		schema.UserMessage("<conversation_to_summarize>\n\n</conversation_to_summarize>"),
	}, nil)
	need := int(float64(window) * (0.7 - 0.4))
	for in := frame; ; in++ {
		if in-frame-bench.OutputTokens(in) >= need {
			return in
		}
	}
}

// tierLine tells, over all seeds of a shape, which planner tiers
// einocompact's rounds came from, and which tier opened the compactions that
// kept less than a fifth of the window verbatim.
func tierLine(sr shapeRuns, window int) string {
	rounds, short := map[string]int{}, map[string]int{}
	var order []string
	seen := func(t string) {
		if rounds[t] == 0 && short[t] == 0 {
			order = append(order, t)
		}
	}
	nShort := 0
	for _, res := range sr.runs {
		for _, c := range res[0].Compactions {
			for _, t := range c.Tiers {
				seen(t)
				rounds[t]++
			}
			if 5*c.Retained < window && len(c.Tiers) > 0 {
				nShort++
				short[c.Tiers[0]]++
			}
		}
	}
	var parts, shortParts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%s %d", t, rounds[t]))
		if short[t] > 0 {
			shortParts = append(shortParts, fmt.Sprintf("%s %d", t, short[t]))
		}
	}
	line := fmt.Sprintf("einocompact's rounds over the %d seeds, by planner tier: %s.", len(sr.runs), strings.Join(parts, ", "))
	if nShort > 0 {
		line += fmt.Sprintf(" The %s that kept less than a fifth of the window verbatim opened with: %s.", plural(nShort, "compaction"), strings.Join(shortParts, ", "))
	}
	return line + "\n\n"
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
