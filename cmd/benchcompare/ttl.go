package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// blockTTL is the generated block of docs/benchmarks.md with the bill under
// a cache that expires, on trajectories with pauses.
const blockTTL = "ttl"

// ttlColdOff names the prepared hook run with the cold-cache rule off.
const ttlColdOff = bench.StrategyPreparedAligned + " (cold rule off)"

// ttlStrategies are the strategies of the TTL bill, in table order.
var ttlStrategies = []string{
	bench.StrategyAligned, bench.StrategyPreparedAligned, ttlColdOff, bench.StrategyEino, bench.StrategyEinoPrefix,
}

// ttlColumns price the runs with the presets' 5-minute cache.
var ttlColumns = []billColumn{
	{label: "OpenAI-like", prices: bench.PricesOpenAI},
	{label: "Anthropic-like", prices: bench.PricesAnthropic},
}

// ttlRun is one seed of one shape: the results by strategy.
type ttlRun map[string]*bench.SimResult

// runTTL runs the TTL bill: every shape and seed with the trajectories'
// pauses on the clock. The hooks run in their defaults (HookConfig.Prices
// nil assumes PricesOpenAI, whose cache lives 5 minutes); the cold rule off
// is the same prepared hook with the OpenAI-like prices and no lifetime.
func runTTL(ctx context.Context, steps, window int, prepareAt float64) (map[bench.Shape][]ttlRun, map[bench.Shape][]map[string]map[string]float64, error) {
	if prepareAt == 0 {
		prepareAt = defaultPrepareAt
	}
	runs := map[bench.Shape][]ttlRun{}
	costs := map[bench.Shape][]map[string]map[string]float64{}
	for _, shape := range bench.Shapes {
		for _, seed := range simSeeds {
			cfg := bench.SimConfig{Shape: shape, Steps: steps, Window: window, Seed: seed, PrepareAt: prepareAt, Pauses: true,
				Strategies: []string{bench.StrategyAligned, bench.StrategyPreparedAligned, bench.StrategyEino, bench.StrategyEinoPrefix}}
			res, err := bench.Simulate(ctx, cfg)
			if err != nil {
				return nil, nil, err
			}
			noTTL := compaction.PricesOpenAI
			noTTL.CacheTTL = 0
			cfg.Strategies, cfg.Prices = []string{bench.StrategyPreparedAligned}, &noTTL
			off, err := bench.Simulate(ctx, cfg)
			if err != nil {
				return nil, nil, err
			}
			run := ttlRun{ttlColdOff: off[0]}
			for _, r := range res {
				run[r.Strategy] = r
			}
			cost := map[string]map[string]float64{}
			for name, r := range run {
				cost[name] = map[string]float64{}
				for _, c := range ttlColumns {
					cost[name][c.label] = bench.BillOf(r, bench.BillConfig{Prices: c.prices, CacheTTL: compaction.DefaultCacheTTL}).Cost
				}
				r.ReleaseRequests()
			}
			runs[shape] = append(runs[shape], run)
			costs[shape] = append(costs[shape], cost)
		}
	}
	return runs, costs, nil
}

// ttlReport prints the TTL bill and its targets.
func ttlReport(runs map[bench.Shape][]ttlRun, costs map[bench.Shape][]map[string]map[string]float64, steps, window int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d model calls per trajectory, window %d tokens, %d seeds per shape, the trajectories' pauses on the clock and a cache that forgets a prefix %v after its last use; "+
		"bill / Eino's, median of the per-seed ratios. The hooks run in their defaults; %q is the prepared hook with `CacheTTL` 0.\n\n",
		steps, window, len(simSeeds), compaction.DefaultCacheTTL, ttlColdOff)
	b.WriteString("| shape | strategy | OpenAI-like | Anthropic-like | compactions | applied early, cache cold |\n|---|---|---:|---:|---:|---:|\n")
	ratio := func(shape bench.Shape, s, base, col string) float64 { return ttlRatio(costs[shape], s, base, col) }
	count := func(shape bench.Shape, s string, f func(*bench.SimResult) int) float64 {
		var vs []float64
		for _, run := range runs[shape] {
			vs = append(vs, float64(f(run[s])))
		}
		return median(vs)
	}
	for _, shape := range bench.Shapes {
		for _, s := range ttlStrategies {
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.0f | %.0f |\n", shape, s,
				ratio(shape, s, bench.StrategyEino, "OpenAI-like"), ratio(shape, s, bench.StrategyEino, "Anthropic-like"),
				count(shape, s, func(r *bench.SimResult) int { return len(r.Compactions) }),
				count(shape, s, func(r *bench.SimResult) int { return r.ColdApplied }))
		}
	}
	b.WriteString("\n| target (issue 32) | shape | measured | met |\n|---|---|---:|---|\n")
	for _, shape := range bench.Shapes {
		for _, s := range []string{bench.StrategyAligned, bench.StrategyPreparedAligned} {
			v := ratio(shape, s, bench.StrategyEino, "OpenAI-like")
			fmt.Fprintf(&b, "| %s / eino, OpenAI-like, <= 0.75 | %s | %.3f | %s |\n", s, shape, v, yes(v <= 0.75))
		}
	}
	for _, shape := range bench.Shapes {
		for _, col := range ttlColumns {
			v := ratio(shape, bench.StrategyPreparedAligned, ttlColdOff, col.label)
			fmt.Fprintf(&b, "| what the cold rule saved: prepared with / without it, %s (report) | %s | %.3f | – |\n", col.label, shape, v)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// ttlRatio is the median over one shape's seeds of strategy s's TTL bill in
// column col over base's.
func ttlRatio(costs []map[string]map[string]float64, s, base, col string) float64 {
	var vs []float64
	for _, c := range costs {
		vs = append(vs, c[s][col]/c[base][col])
	}
	return median(vs)
}
