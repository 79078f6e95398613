package main

import (
	"strings"
	"testing"

	"github.com/einocompact/einocompact/bench"
)

// Issue 32's rows judge each ratio against its limit: a fixed one, 0.95x
// eino-prefix's bill, or the floor-bound row's ratio plus 0.05 in the same
// column; the TTL rows appear only when the TTL bill ran.
func TestTargets32Rows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		aligned, prefix float64 // OpenAI-like bills; Eino's is 100
		sep, floor      float64 // separate-summarizer column bills
		want            map[string]string
	}{
		{"all met", 79, 90, 114, 110, map[string]string{
			"einocompact-aligned / eino, OpenAI-like":              "| <= 0.80 | 0.790 | yes |",
			"einocompact-aligned / eino-prefix, OpenAI-like":       "| <= 0.95 | 0.878 | yes |",
			"einocompact / eino, OpenAI-like, separate summarizer": "| <= 1.150 (floor-bound + 0.05) | 1.140 | yes |",
		}},
		{"none met", 81, 84, 116, 110, map[string]string{
			"einocompact-aligned / eino, OpenAI-like":              "| <= 0.80 | 0.810 | **no** |",
			"einocompact-aligned / eino-prefix, OpenAI-like":       "| <= 0.95 | 0.964 | **no** |",
			"einocompact / eino, OpenAI-like, separate summarizer": "| <= 1.150 (floor-bound + 0.05) | 1.160 | **no** |",
		}},
	}
	for _, c := range cases {
		bs := billShape{shape: bench.ShapeManySmall}
		run := billRun{results: map[string]*bench.SimResult{}, bills: map[billKey]bench.Bill{}}
		set := func(s string, col billColumn, cost float64) {
			run.results[s] = &bench.SimResult{Strategy: s}
			run.bills[billKey{strategy: s, column: col.label}] = bench.Bill{Cost: cost}
		}
		for _, col := range billColumns {
			for _, s := range []string{bench.StrategyAligned, bench.StrategyPreparedAligned, bench.StrategyEinocompact, bench.StrategyEinoPrefix, bench.StrategyFloorBound} {
				set(s, col, 100)
			}
			set(bench.StrategyEino, col, 100)
		}
		set(bench.StrategyAligned, billColumns[1], c.aligned)
		set(bench.StrategyEinoPrefix, billColumns[1], c.prefix)
		set(bench.StrategyEinocompact, billColumns[4], c.sep)
		set(bench.StrategyFloorBound, billColumns[4], c.floor)
		bs.runs = []billRun{run}
		table := targets32Table([]billShape{bs}, nil)
		for prefix, want := range c.want {
			var row string
			for _, line := range strings.Split(table, "\n") {
				if strings.HasPrefix(line, "| "+prefix) {
					row = line
				}
			}
			if !strings.HasSuffix(row, want) {
				t.Errorf("%s: row %q, want it to end with %q", c.name, row, want)
			}
		}
		if strings.Contains(table, "TTL 5 min") {
			t.Errorf("%s: TTL rows without the TTL bill:\n%s", c.name, table)
		}
		ttl := map[bench.Shape][]map[string]map[string]float64{bench.ShapeManySmall: {{
			bench.StrategyAligned:         {"OpenAI-like": 74, "Anthropic-like": 80},
			bench.StrategyPreparedAligned: {"OpenAI-like": 76, "Anthropic-like": 80},
			bench.StrategyEino:            {"OpenAI-like": 100, "Anthropic-like": 100},
		}}}
		table = targets32Table([]billShape{bs}, ttl)
		for _, want := range []string{
			"| einocompact-aligned / eino, OpenAI-like, TTL 5 min and pauses | many-small-results | not measured | <= 0.75 | 0.740 | yes |",
			"| einocompact-prepared-aligned / eino, OpenAI-like, TTL 5 min and pauses | many-small-results | not measured | <= 0.75 | 0.760 | **no** |",
			"| einocompact-aligned / eino, Anthropic-like, TTL 5 min and pauses | many-small-results | not measured | report | 0.800 | – |",
		} {
			if !strings.Contains(table, want) {
				t.Errorf("%s: table lacks %q:\n%s", c.name, want, table)
			}
		}
	}
}
