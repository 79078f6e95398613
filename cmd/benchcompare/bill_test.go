package main

import (
	"fmt"
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

// The prepared rows of both targets tables name the PrepareAt the prepared
// strategies were simulated with (-prepare-at), not the default.
func TestPreparedRowsNameThePrepareAtSimulated(t *testing.T) {
	t.Parallel()
	for _, prepareAt := range []float64{0.42, defaultPrepareAt, 0.5} {
		bs := billShape{shape: bench.ShapeManySmall}
		run := billRun{results: map[string]*bench.SimResult{}, bills: map[billKey]bench.Bill{}}
		for _, s := range []string{bench.StrategyAligned, bench.StrategyPreparedAligned, bench.StrategyEinocompact, bench.StrategyPrepared,
			bench.StrategyEinoPrefix, bench.StrategyFloorBound, bench.StrategyEino} {
			cfg := bench.SimConfig{Shape: bs.shape}
			if s == bench.StrategyPrepared || s == bench.StrategyPreparedAligned {
				cfg.PrepareAt = prepareAt
			}
			run.results[s] = &bench.SimResult{Strategy: s, Config: cfg}
			for _, col := range billColumns {
				run.bills[billKey{strategy: s, column: col.label}] = bench.Bill{Cost: 100}
			}
		}
		bs.runs = []billRun{run}
		want := fmt.Sprintf("`PrepareAt` %v / synchronous", prepareAt)
		for name, table := range map[string]string{"issue 23": targetsTable([]billShape{bs}), "issue 32": targets32Table([]billShape{bs}, nil)} {
			rows := 0
			for _, line := range strings.Split(table, "\n") {
				if !strings.HasPrefix(line, "| "+bench.StrategyPrepared) {
					continue
				}
				rows++
				if !strings.Contains(line, want) {
					t.Errorf("PrepareAt %v, %s targets: row %q does not say %q", prepareAt, name, line, want)
				}
			}
			if rows == 0 {
				t.Errorf("PrepareAt %v, %s targets: no prepared row:\n%s", prepareAt, name, table)
			}
		}
	}
}
