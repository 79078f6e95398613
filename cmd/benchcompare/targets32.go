package main

import (
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/bench"
)

// blockTargets32 is the generated block of docs/benchmarks.md with the
// targets of issue 32, next to issue 23's (the bill block's last table).
const blockTargets32 = "targets32"

// issue32Now are the figures issue 32 was filed with, by shape in the
// order of bench.Shapes: what the rows' "issue's now" column quotes.
var issue32Now = map[string][3]string{
	"openai":    {"0.852", "0.869", "0.871"},
	"anthropic": {"0.872", "0.888", "0.878"},
	"prepared":  {"1.039", "1.096", "1.023"},
}

// target32 is one row of issue 32's table: a measured ratio, the limit it
// must not exceed (which may itself be measured, as the floor-bound row
// plus a margin), and how the limit reads.
type target32 struct {
	label, shape, now string
	measured, limit   float64
	limitText         string
	report            bool // reported, not judged
}

// targets32 are issue 32's targets, per shape, from the bill's runs and,
// when ttl is not nil, the TTL bill's: einocompact with CacheAligned where
// the summarizer is the agent's model (einocompact-aligned), against Eino
// v0.9.21 as shipped and configured to send its summarizer the agent's
// prefix (eino-prefix); the prepared hook against the synchronous one; the
// transcript request with a separate summarizer against the floor-bound
// row; with the TTL and pauses, both hooks against Eino.
func targets32(all []billShape, ttl map[bench.Shape][]map[string]map[string]float64) []target32 {
	aligned, prefix, eino := bench.StrategyAligned, bench.StrategyEinoPrefix, bench.StrategyEino
	prepareAt := preparedAt(all)
	var out []target32
	for k, bs := range all {
		shape := string(bs.shape)
		now := func(key string) string {
			if k < 3 {
				return issue32Now[key][k]
			}
			return "–"
		}
		for _, c := range []struct {
			column billColumn
			key    string
			limit  float64
		}{{billColumns[1], "openai", 0.80}, {billColumns[2], "anthropic", 0.82}} {
			out = append(out,
				target32{label: fmt.Sprintf("%s / %s, %s", aligned, eino, c.column.label), shape: shape, now: now(c.key),
					measured: bs.ratio(aligned, eino, c.column, nil), limit: c.limit, limitText: fmt.Sprintf("<= %.2f", c.limit)},
				target32{label: fmt.Sprintf("%s / %s, %s", aligned, prefix, c.column.label), shape: shape, now: "–",
					measured: bs.ratio(aligned, prefix, c.column, nil), limit: 0.95, limitText: "<= 0.95"})
		}
		out = append(out, target32{label: fmt.Sprintf("%s / %s, `PrepareAt` %v / synchronous, OpenAI-like", bench.StrategyPreparedAligned, aligned, prepareAt),
			shape: shape, now: now("prepared"), measured: bs.ratio(bench.StrategyPreparedAligned, aligned, billColumns[1], nil), limit: 1.02, limitText: "<= 1.02"})
		for _, c := range []struct {
			ours   string
			column billColumn
			now    string
		}{{bench.StrategyEinocompact, billColumns[4], "floor-bound + 0.07-0.11"}, {aligned, billColumns[0], "–"}} {
			floor := bs.ratio(bench.StrategyFloorBound, eino, c.column, nil)
			out = append(out, target32{label: fmt.Sprintf("%s / %s, %s (floor-bound / %s: %.3f)", c.ours, eino, c.column.label, eino, floor),
				shape: shape, now: c.now, measured: bs.ratio(c.ours, eino, c.column, nil), limit: floor + 0.05, limitText: fmt.Sprintf("<= %.3f (floor-bound + 0.05)", floor+0.05)})
		}
		costs, ok := ttl[bs.shape]
		if !ok {
			continue
		}
		for _, s := range []string{aligned, bench.StrategyPreparedAligned} {
			out = append(out, target32{label: fmt.Sprintf("%s / %s, OpenAI-like, TTL 5 min and pauses", s, eino), shape: shape, now: "not measured",
				measured: ttlRatio(costs, s, eino, "OpenAI-like"), limit: 0.75, limitText: "<= 0.75"})
			out = append(out, target32{label: fmt.Sprintf("%s / %s, Anthropic-like, TTL 5 min and pauses", s, eino), shape: shape, now: "not measured",
				measured: ttlRatio(costs, s, eino, "Anthropic-like"), limitText: "report", report: true})
		}
	}
	return out
}

// targets32Table prints issue 32's targets; ttl nil leaves out the rows of
// the TTL bill (-bill does not run it).
func targets32Table(all []billShape, ttl map[bench.Shape][]map[string]map[string]float64) string {
	var b strings.Builder
	b.WriteString("#### Targets of issue 32 (median seed, every shape)\n\n")
	b.WriteString("einocompact in its defaults with `CacheAligned` where the summarizer is the agent's model (`einocompact-aligned`), " +
		"the transcript request where it is a separate model (`einocompact`). A limit written with floor-bound is that row's ratio to Eino in the same column, plus 0.05; " +
		"the issue's \"separate summarizer at 0.2x, no caching\" is the separate summarizer's column (whose ratios gave the issue's 0.07-0.11 above floor-bound), and the no-caching column is shown too. " +
		"The TTL rows come from the bill with the trajectories' pauses and a 5-minute cache (\"The cache's clock\", below).\n\n")
	b.WriteString("| bill | shape | issue's \"now\" | target | measured | met |\n|---|---|---:|---:|---:|---|\n")
	for _, t := range targets32(all, ttl) {
		met := yes(t.measured <= t.limit)
		if t.report {
			met = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %s |\n", t.label, t.shape, t.now, t.limitText, t.measured, met)
	}
	b.WriteString("\n")
	return b.String()
}
