package main

import (
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// The demo's bill: each call pays what the previous call did not send (or
// what a compaction before it invalidated) at the uncached price and the
// rest at the cached one; the summarizer pays its cached tokens cached and
// its output at the output price.
func TestBillOf(t *testing.T) {
	t.Parallel()
	steps := []stepStat{
		{est: 1000, shadow: 1000, completion: 10},
		{est: 2000, shadow: 2000, completion: 10},
		{est: 1200, shadow: 3000, completion: 10}, // after a compaction that invalidated 1500
	}
	comps := []compactionStat{{beforeStep: 3, invalidated: 1500, sumPrompt: 1800, sumCached: 1000, sumCompletion: 100}}
	cases := []struct {
		name          string
		prices        compaction.Prices
		with, without float64
	}{
		// Every input token costs 1: 4200 + 30*8 + 1800 + 100*8 = 7040;
		// without: 6000 + 240 = 6240.
		{"no caching", compaction.PricesNoCache, 7040, 6240},
		// Call 1: 1000 new. Call 2: 1000 cached, 1000 new. Call 3: 2000-1500
		// = 500 cached, 700 new. Outputs 240. Summarizer: 800 new, 1000
		// cached, 800 output. 1000 + 100+1000 + 50+700 + 240 + 800+100+800 = 4790.
		// Without: 1000 + 100+1000 + 200+1000 + 240 = 3540.
		{"OpenAI-like", compaction.PricesOpenAI, 4790, 3540},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := billOf(steps, comps, tc.prices)
			if diff(b.with, tc.with) > 1e-6 || diff(b.without, tc.without) > 1e-6 {
				t.Errorf("bill %.2f with, %.2f without; want %.2f and %.2f", b.with, b.without, tc.with, tc.without)
			}
		})
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
