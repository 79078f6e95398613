package main

import "github.com/einocompact/einocompact/hooks/compaction"

// runBill is what a run cost, in uncached input tokens of the agent's model,
// under prices, with a prefix cache as providers keep one: a call reads from
// the cache the previous call's prompt, less what a compaction before it
// invalidated (Report.InvalidatedTokens), and pays the rest as new input;
// the summarizer pays its reported cached tokens at the cached price. The
// same run without compaction sends each call's uncompacted prompt (the
// reporter's shadow), the previous one always cached. Without caching
// (prices.CachedInput 1) every input token costs 1.
type runBill struct {
	with, without float64
}

func billOf(steps []stepStat, compactions []compactionStat, p compaction.Prices) runBill {
	invalidated := map[int]int{} // step -> tokens its compaction invalidated
	var b runBill
	for _, c := range compactions {
		invalidated[c.beforeStep] += c.invalidated
		b.with += float64(c.sumPrompt-c.sumCached) + p.CachedInput*float64(c.sumCached) + p.Output*float64(c.sumCompletion)
	}
	prev, prevShadow := 0, 0
	for i, s := range steps {
		cached := min(max(prev-invalidated[i+1], 0), s.est)
		b.with += float64(s.est-cached) + p.CachedInput*float64(cached) + p.Output*float64(s.completion)
		cachedShadow := min(prevShadow, s.shadow)
		b.without += float64(s.shadow-cachedShadow) + p.CachedInput*float64(cachedShadow) + p.Output*float64(s.completion)
		prev, prevShadow = s.est, s.shadow
	}
	return b
}
