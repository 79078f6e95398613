package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// blockBill is the generated block of docs/benchmarks.md with the bill.
const blockBill = "bill"

// runBillOnly prints the bill without the rest of the simulation.
func runBillOnly(steps, window int, prepareAt, compactTo float64, stdout io.Writer) error {
	bills, err := runBills(context.Background(), steps, window, prepareAt, compactTo)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, billReport(bills, steps, window)+targets32Table(bills, nil))
	return err
}

// billStrategies are the strategies billed, in table order; the ratios are
// to bench.StrategyEino. A name ending in pricedSuffix is the strategy
// before it with HookConfig.Prices set to the prices of the column it is
// billed in (billColumn.hook).
var billStrategies = []string{
	bench.StrategyEinocompact, bench.StrategyEinocompact + pricedSuffix,
	bench.StrategyAligned, bench.StrategyAligned + pricedSuffix,
	bench.StrategyPrepared, bench.StrategyPreparedAligned, bench.StrategyPreparedAligned + pricedSuffix,
	bench.StrategyPruning, bench.StrategyPruningAligned,
	bench.StrategyEino, bench.StrategyEinoPrefix, bench.StrategyNone, bench.StrategyFloorBound,
}

// pricedSuffix marks a strategy run with HookConfig.Prices.
const pricedSuffix = "+prices"

// hookPriceSets are the HookConfig.Prices of the priced runs, by the
// billColumn.hook that bills them, and the strategies each is run for:
// einocompact with CacheAligned under every preset, the prepared hook and
// the transcript request (for a separate summarizer) under the OpenAI-like
// one only, which keeps the runs to twice the unpriced ones.
var hookPriceSets = []struct {
	name       string
	prices     compaction.Prices
	strategies []string
}{
	{"openai", compaction.PricesOpenAI, []string{bench.StrategyEinocompact, bench.StrategyAligned, bench.StrategyPreparedAligned}},
	{"anthropic", compaction.PricesAnthropic, []string{bench.StrategyAligned}},
	{"no_cache", compaction.PricesNoCache, []string{bench.StrategyAligned}},
	{"explicit", compaction.Prices{CachedInput: 0.1, CacheWrite: 1.25, Output: 8}, []string{bench.StrategyAligned}},
}

// billColumn is one way of pricing a run.
type billColumn struct {
	label     string
	prices    bench.Prices
	hook      string // the hookPriceSets entry priced strategies are run with
	separate  bool   // the summarizer is a separate model at bench.SeparateSummarizerPrice
	forgetful bool   // with bench.DefaultForgetRule
}

var billColumns = []billColumn{
	{label: "no caching", prices: bench.PricesNoCache, hook: "no_cache"},
	{label: "OpenAI-like", prices: bench.PricesOpenAI, hook: "openai"},
	{label: "Anthropic-like", prices: bench.PricesAnthropic, hook: "anthropic"},
	{label: "explicit breakpoints", prices: bench.PricesExplicit, hook: "explicit"},
	{label: "OpenAI-like, separate summarizer 0.2x", prices: bench.PricesOpenAI, hook: "openai", separate: true},
	{label: "OpenAI-like, forgetting", prices: bench.PricesOpenAI, hook: "openai", forgetful: true},
	{label: "OpenAI-like, separate summarizer, forgetting", prices: bench.PricesOpenAI, hook: "openai", separate: true, forgetful: true},
}

func (c billColumn) config(recalls []bench.Recall, rule *bench.ForgetRule) bench.BillConfig {
	cfg := bench.BillConfig{Prices: c.prices}
	if c.separate {
		cfg.SummarizerPrice = bench.SeparateSummarizerPrice
	}
	if c.forgetful {
		if rule == nil {
			rule = &bench.DefaultForgetRule
		}
		cfg.Rule, cfg.Recalls = rule, recalls
	}
	return cfg
}

// billRun is one trajectory run by every billed strategy.
type billRun struct {
	seed    uint64
	recalls []bench.Recall
	results map[string]*bench.SimResult
	bills   map[billKey]bench.Bill
}

type billKey struct {
	strategy, column, rule string
}

// result is strategy s's run as billed in column c: for a priced strategy,
// the run with c's prices; nil when there is none.
func (run billRun) result(s string, c billColumn) *bench.SimResult {
	if strings.HasSuffix(s, pricedSuffix) {
		return run.results[s+"@"+c.hook]
	}
	return run.results[s]
}

// bill is strategy s's run billed as column c says (with rule instead of
// the default forgetting rule, when set), computed once. A strategy not
// run for c costs NaN, which the tables print as "–".
func (run billRun) bill(s string, c billColumn, rule *bench.ForgetRule) bench.Bill {
	k := billKey{strategy: s, column: c.label}
	if rule != nil {
		k.rule = rule.Name
	}
	if b, ok := run.bills[k]; ok {
		return b
	}
	r := run.result(s, c)
	if r == nil {
		return bench.Bill{Cost: math.NaN()}
	}
	b := bench.BillOf(r, c.config(run.recalls, rule))
	run.bills[k] = b
	return b
}

// billShape holds the runs of one shape, one per seed.
type billShape struct {
	shape bench.Shape
	runs  []billRun
}

// runBills runs every billed strategy over every shape and seed; compactTo
// 0 leaves the hook's default.
func runBills(ctx context.Context, steps, window int, prepareAt, compactTo float64) ([]billShape, error) {
	var strategies []string
	for _, s := range billStrategies {
		if !strings.HasSuffix(s, pricedSuffix) && (prepareAt != 0 || (s != bench.StrategyPrepared && s != bench.StrategyPreparedAligned)) {
			strategies = append(strategies, s)
		}
	}
	var out []billShape
	for _, shape := range bench.Shapes {
		bs := billShape{shape: shape}
		for _, seed := range simSeeds {
			cfg := bench.SimConfig{Shape: shape, Steps: steps, Window: window, Seed: seed, PrepareAt: prepareAt, CompactTo: compactTo, Strategies: strategies}
			res, err := bench.Simulate(ctx, cfg)
			if err != nil {
				return nil, err
			}
			_, script := bench.Trajectory(shape, steps, window, seed)
			run := billRun{seed: seed, recalls: bench.Recalls(script, seed), results: map[string]*bench.SimResult{}, bills: map[billKey]bench.Bill{}}
			for _, r := range res {
				run.results[r.Strategy] = r
			}
			for _, set := range hookPriceSets {
				names := slices.DeleteFunc(slices.Clone(set.strategies), func(s string) bool { return !slices.Contains(strategies, s) })
				prices := set.prices
				cfg.Strategies, cfg.Prices = names, &prices
				priced, err := bench.Simulate(ctx, cfg)
				if err != nil {
					return nil, fmt.Errorf("prices %s: %w", set.name, err)
				}
				for _, r := range priced {
					run.results[r.Strategy+pricedSuffix+"@"+set.name] = r
				}
				res = append(res, priced...)
			}
			// Every bill the report reads, made now, so the requests
			// (every message of every run) need not stay in memory.
			for _, s := range billStrategies {
				for _, c := range billColumns {
					run.bill(s, c, nil)
				}
				for k := range bench.ForgetRules {
					run.bill(s, billColumns[5], &bench.ForgetRules[k])
				}
			}
			for _, r := range res {
				r.ReleaseRequests()
			}
			bs.runs = append(bs.runs, run)
		}
		out = append(out, bs)
	}
	return out, nil
}

// strategiesOf lists the strategies the runs have, in table order.
func (bs billShape) strategiesOf() []string {
	var out []string
	for _, s := range billStrategies {
		if bs.runs[0].result(s, billColumns[1]) != nil {
			out = append(out, s)
		}
	}
	return out
}

// perSeed applies f to strategy s of every seed (for a priced strategy,
// to its run with the OpenAI-like prices).
func (bs billShape) perSeed(s string, f func(billRun, *bench.SimResult) float64) []float64 {
	out := make([]float64, len(bs.runs))
	for i, run := range bs.runs {
		out[i] = f(run, run.result(s, billColumns[1]))
	}
	return out
}

// ratio is the median over seeds of strategy s's bill in column c over
// baseline's.
func (bs billShape) ratio(s, baseline string, c billColumn, rule *bench.ForgetRule) float64 {
	return median(bs.perSeed(s, func(run billRun, _ *bench.SimResult) float64 {
		return run.bill(s, c, rule).Cost / run.bill(baseline, c, rule).Cost
	}))
}

// billTarget is one row of issue 23's targets.
type billTarget struct {
	label        string
	ours, theirs string
	column       billColumn
	limit        float64
	issueBefore  string
}

// billTargets are issue 23's targets: einocompact in its default settings,
// with CacheAligned where the summarizer is the agent's model; the prepared
// rows compare the hook preparing at prepareAt with the synchronous one.
func billTargets(prepareAt float64) []billTarget {
	agent, sep := bench.StrategyAligned, bench.StrategyEinocompact
	prepared := func(summarizer string) string {
		return fmt.Sprintf("`PrepareAt` %v / synchronous (OpenAI-like, %s)", prepareAt, summarizer)
	}
	return []billTarget{
		{label: "OpenAI-like, summarizer = agent's model", ours: agent, theirs: bench.StrategyEino, column: billColumns[1], limit: 0.85, issueBefore: "1.18"},
		{label: "Anthropic-like, summarizer = agent's model", ours: agent, theirs: bench.StrategyEino, column: billColumns[2], limit: 0.85, issueBefore: "1.22"},
		{label: "OpenAI-like, separate summarizer at 0.2x", ours: sep, theirs: bench.StrategyEino, column: billColumns[4], limit: 1.10, issueBefore: "1.32"},
		{label: "no caching", ours: agent, theirs: bench.StrategyEino, column: billColumns[0], limit: 1.15, issueBefore: "1.29"},
		{label: "OpenAI-like, agent's model, with the forgetting model", ours: agent, theirs: bench.StrategyEino, column: billColumns[5], limit: 0.75, issueBefore: "0.95"},
		{label: "OpenAI-like, separate summarizer, with the forgetting model", ours: sep, theirs: bench.StrategyEino, column: billColumns[6], limit: 0.90, issueBefore: "1.07"},
		{label: prepared("agent's model"), ours: bench.StrategyPreparedAligned, theirs: agent, column: billColumns[1], limit: 1.02, issueBefore: "1.07-1.09"},
		{label: prepared("separate summarizer"), ours: bench.StrategyPrepared, theirs: sep, column: billColumns[4], limit: 1.02, issueBefore: "1.07-1.09"},
	}
}

// preparedAt is the PrepareAt the prepared strategies of all were
// simulated with (-prepare-at), 0 when none ran.
func preparedAt(all []billShape) float64 {
	for _, bs := range all {
		for _, run := range bs.runs {
			for _, s := range []string{bench.StrategyPreparedAligned, bench.StrategyPrepared} {
				if r := run.results[s]; r != nil {
					return r.Config.PrepareAt
				}
			}
		}
	}
	return 0
}

func kilo(v float64) string {
	if v >= 1e6 {
		return fmt.Sprintf("%.2fM", v/1e6)
	}
	return fmt.Sprintf("%.0fk", v/1e3)
}

func billReport(all []billShape, steps, window int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d model calls per trajectory, window %d tokens, %d seeds per shape; every figure is the median over the seeds (a ratio is the median of the per-seed ratios). "+
		"Bills are in uncached input tokens of the agent's model (an input token the cache did not serve costs 1). "+
		"The forgetting columns use the rule \"%s\" with %s.\n\n",
		steps, window, len(simSeeds), bench.DefaultForgetRule.Name, recallSchedule())
	for _, bs := range all {
		fmt.Fprintf(&b, "#### Bill: %s\n\n", bs.shape)
		b.WriteString("| strategy |")
		for _, c := range billColumns {
			fmt.Fprintf(&b, " %s |", c.label)
		}
		b.WriteString("\n|---|")
		b.WriteString(strings.Repeat("---:|", len(billColumns)))
		b.WriteString("\n")
		for _, s := range bs.strategiesOf() {
			fmt.Fprintf(&b, "| %s |", s)
			for _, c := range billColumns {
				cost := median(bs.perSeed(s, func(run billRun, _ *bench.SimResult) float64 {
					return run.bill(s, c, nil).Cost
				}))
				if math.IsNaN(cost) {
					b.WriteString(" – |")
					continue
				}
				fmt.Fprintf(&b, " %s (%.2f) |", kilo(cost), bs.ratio(s, bench.StrategyEino, c, nil))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		b.WriteString("| strategy | compactions | main input | of it cached, OpenAI-like | of it cache writes, Anthropic-like | main output | summarizer input | of it cached, OpenAI-like | summarizer output | re-sent per compaction, OpenAI-like | verbatim after a compaction, min | recalls forgotten / extra calls |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range bs.strategiesOf() {
			med := func(f func(billRun, *bench.SimResult) float64) float64 { return median(bs.perSeed(s, f)) }
			openai := func(run billRun, _ *bench.SimResult) bench.Bill { return run.bill(s, billColumns[5], nil) }
			anthropic := func(run billRun, _ *bench.SimResult) bench.Bill { return run.bill(s, billColumns[2], nil) }
			comp := med(func(_ billRun, r *bench.SimResult) float64 { return float64(len(r.Compactions)) })
			in := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Main.Input) })
			cached := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Main.Read) })
			writes := med(func(run billRun, r *bench.SimResult) float64 { return float64(anthropic(run, r).Main.Written) })
			writesCell := kilo(writes)
			if bs.runs[0].result(s, billColumns[2]) == nil {
				writesCell = "–"
			}
			out := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Main.Output) })
			sin := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Summarizer.Input) })
			scached := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Summarizer.Read) })
			sout := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Summarizer.Output) })
			resent := med(func(run billRun, r *bench.SimResult) float64 { return meanInt(openai(run, r).Resent) })
			forgot := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).Forgotten) })
			extra := med(func(run billRun, r *bench.SimResult) float64 { return float64(openai(run, r).ExtraCalls) })
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %.0f / %.0f |\n",
				s, comp, kilo(in), kilo(cached), writesCell, kilo(out), kilo(sin), kilo(scached), kilo(sout), resent, bs.verbatimMin(s, window), forgot, extra)
		}
		b.WriteString("\n")
		b.WriteString(moneyTable(bs))
		b.WriteString(rankingTable(bs))
	}
	b.WriteString(targetsTable(all))
	return b.String()
}

// moneyTable splits each strategy's OpenAI-like bill (agent's model, no
// forgetting) into where it went, as shares of the bill.
func moneyTable(bs billShape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Where the money goes (%s, OpenAI-like, summarizer = agent's model; share of the bill, median seed):\n\n", bs.shape)
	b.WriteString("| strategy | main input, uncached | of it re-sent after compactions | main input, cached | main output | summarizer input | summarizer output |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	p := bench.PricesOpenAI
	for _, s := range bs.strategiesOf() {
		share := func(f func(bench.Bill) float64) string {
			return fmt.Sprintf("%.0f %%", 100*median(bs.perSeed(s, func(run billRun, _ *bench.SimResult) float64 {
				bill := run.bill(s, billColumns[1], nil)
				return f(bill) / bill.Cost
			})))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", s,
			share(func(x bench.Bill) float64 { return float64(x.Main.Input - x.Main.Read - x.Main.Written) }),
			share(func(x bench.Bill) float64 { return float64(sumInts(x.Resent)) }),
			share(func(x bench.Bill) float64 { return p.CachedInput * float64(x.Main.Read) }),
			share(func(x bench.Bill) float64 { return p.Output * float64(x.Main.Output) }),
			share(func(x bench.Bill) float64 {
				return float64(x.Summarizer.Input-x.Summarizer.Read) + p.CachedInput*float64(x.Summarizer.Read)
			}),
			share(func(x bench.Bill) float64 { return p.Output * float64(x.Summarizer.Output) }))
	}
	b.WriteString("\n")
	return b.String()
}

// rankingTable shows, for one shape, each strategy's OpenAI-like bill
// (agent's model) over Eino's and its rank under every forgetting rule.
func rankingTable(bs billShape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "How the ranking moves with the forgetting rule (%s, OpenAI-like, summarizer = agent's model; bill / Eino's, rank 1 = cheapest):\n\n", bs.shape)
	b.WriteString("| strategy | no forgetting |")
	for _, r := range bench.ForgetRules {
		fmt.Fprintf(&b, " %s |", r.Name)
	}
	b.WriteString("\n|---|---:|")
	b.WriteString(strings.Repeat("---:|", len(bench.ForgetRules)))
	b.WriteString("\n")
	strategies := bs.strategiesOf()
	cols := make([][]float64, 1+len(bench.ForgetRules))
	for k := range cols {
		c := billColumns[1]
		var rule *bench.ForgetRule
		if k > 0 {
			c = billColumns[5]
			rule = &bench.ForgetRules[k-1]
		}
		for _, s := range strategies {
			cols[k] = append(cols[k], bs.ratio(s, bench.StrategyEino, c, rule))
		}
	}
	for i, s := range strategies {
		fmt.Fprintf(&b, "| %s |", s)
		for _, col := range cols {
			rank := 1
			for _, v := range col {
				if v < col[i] {
					rank++
				}
			}
			fmt.Fprintf(&b, " %.2f (%d) |", col[i], rank)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

func targetsTable(all []billShape) string {
	var b strings.Builder
	b.WriteString("#### Targets of the bill (issue 23; median seed, every shape)\n\n")
	fmt.Fprintf(&b, "Each target is measured for einocompact in its defaults and, on the rows marked %q, with `HookConfig.Prices` set to the column's prices.\n\n", pricedSuffix)
	b.WriteString("| bill | shape | issue's \"now\" | target | measured | met |\n|---|---|---:|---:|---:|---|\n")
	for _, t := range billTargets(preparedAt(all)) {
		for _, suffix := range []string{"", pricedSuffix} {
			ours, theirs := t.ours+suffix, t.theirs
			if theirs != bench.StrategyEino {
				theirs += suffix
			}
			for _, bs := range all {
				if bs.runs[0].result(ours, t.column) == nil || bs.runs[0].result(theirs, t.column) == nil {
					continue
				}
				v := bs.ratio(ours, theirs, t.column, nil)
				fmt.Fprintf(&b, "| %s / %s, %s | %s | %s | <= %.2f | %.3f | %s |\n", ours, theirs, t.label, bs.shape, t.issueBefore, t.limit, v, yes(v <= t.limit))
			}
		}
	}
	b.WriteString("\n")
	return b.String()
}

func recallSchedule() string {
	return "recalls scripted from step 20 on, one step in 8 on average, each needing a tool result from 5 to 60 steps back"
}

func meanInt(vs []int) float64 {
	if len(vs) == 0 {
		return 0
	}
	return float64(sumInts(vs)) / float64(len(vs))
}

func sumInts(vs []int) int {
	sum := 0
	for _, v := range vs {
		sum += v
	}
	return sum
}

// verbatimMin is the least verbatim context any compaction of strategy s
// left over every seed, as a share of the window ("–" without compactions).
func (bs billShape) verbatimMin(s string, window int) string {
	least := -1
	for _, run := range bs.runs {
		r := run.result(s, billColumns[1])
		if r == nil {
			continue
		}
		for _, c := range r.Compactions {
			if least < 0 || c.Retained < least {
				least = c.Retained
			}
		}
	}
	if least < 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(least)/float64(window))
}
