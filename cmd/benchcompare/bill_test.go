package main

import (
	"strings"
	"testing"

	"github.com/einocompact/einocompact/bench"
)

// A target is judged on the median of the per-seed ratios, and met only at
// or below its limit.
func TestBillTargetMedianOfSeeds(t *testing.T) {
	t.Parallel()
	openai := billColumns[1]
	shape := func(aligned ...float64) billShape {
		bs := billShape{shape: bench.ShapeManySmall}
		for i, cost := range aligned {
			run := billRun{seed: uint64(i), results: map[string]*bench.SimResult{}, bills: map[billKey]bench.Bill{}}
			for s, c := range map[string]float64{bench.StrategyAligned: cost, bench.StrategyEino: 100} {
				run.results[s] = &bench.SimResult{Strategy: s}
				run.bills[billKey{strategy: s, column: openai.label}] = bench.Bill{Cost: c}
			}
			bs.runs = append(bs.runs, run)
		}
		return bs
	}
	cases := []struct {
		costs []float64
		ratio string
		met   string
	}{
		{[]float64{80, 90, 200}, "0.900", "**no**"},
		{[]float64{80, 84, 200}, "0.840", "yes"},
		{[]float64{85, 85, 85}, "0.850", "yes"},
	}
	for _, c := range cases {
		bs := shape(c.costs...)
		table := targetsTable([]billShape{bs})
		var row string
		for _, line := range strings.Split(table, "\n") {
			if strings.Contains(line, "OpenAI-like, summarizer = agent's model") {
				row = line
			}
		}
		want := "| <= 0.85 | " + c.ratio + " | " + c.met + " |"
		if !strings.HasSuffix(row, want) {
			t.Errorf("costs %v: row %q, want it to end with %q", c.costs, row, want)
		}
	}
}
