// Package cost prices one compaction cycle under a provider's cache prices
// and TTL: what replacing a prefix costs and saves over the calls until the
// next compaction, the summary's output budget, the reasoning tokens a
// summarizer's replies bill as output, and whether the cache has gone cold
// (the mark the hook puts on a compaction's ctx, WithCold).
//
// It works on plain numbers: token counts the caller measured and Rates, the
// fields of compaction.Prices (which converts to Rates). It uses no other
// package of hooks/compaction; the hook weighs its compactions with it, and
// the summarization compactor sizes each round's output budget with
// SummaryBudget.
package cost

import (
	"math"
	"time"
)

// Rates are a model's token prices relative to an uncached input token,
// which costs 1, and how long its provider keeps a prompt cache: the fields
// of compaction.Prices, which documents them.
type Rates struct {
	CachedInput float64       // an input token read from the prompt cache
	CacheWrite  float64       // an input token written to the cache; 0: the uncached price, 1
	Output      float64       // an output token
	CacheTTL    time.Duration // the cache's lifetime after its last use; 0: no expiry modelled
}

// write is the price of a token written to the cache.
func (r Rates) write() float64 {
	if r.CacheWrite == 0 {
		return 1
	}
	return r.CacheWrite
}

// Cycle describes one compaction and the calls until the next, in tokens
// of the coming call (messages and overhead): the model behind
// compaction.HookConfig.Prices.
type Cycle struct {
	Estimate int // the call's size now
	Trigger  int // where the next compaction starts
	Prefix   int // what stays as it is at the front (leading system messages)
	Growth   int // tokens a call adds, at least 1
	// Cold says the provider's cache has expired (Rates.CacheTTL): the
	// coming call is sent uncached whether or not it is compacted, so
	// re-sending what a compaction keeps costs nothing extra.
	Cold bool
	// Reasoning is the hidden reasoning a summarizer round bills as output
	// besides its summary, learned from the rounds' usage (OutputCosts);
	// 0 until a round reported any.
	Reasoning int
}

// Calls is how many calls pass before the next compaction when this one
// leaves kept tokens: at least one.
func (c Cycle) Calls(kept int) float64 {
	return math.Max(float64(c.Trigger-kept)/float64(c.Growth), 1)
}

// Cost is what a compaction that leaves kept tokens costs: the summarizer
// reading what it replaces and writing its summary (the summarization
// compactor's output budget, SummaryBudget, plus the hidden reasoning a round
// was seen to bill as output), and the kept part
// behind the first replaced message, which was read from the cache and is
// now sent anew at the write price.
func (c Cycle) Cost(r Rates, kept int) float64 {
	replaced := max(c.Estimate-kept, 0)
	return float64(replaced) + r.Output*float64(SummaryBudget(replaced)+c.Reasoning) + c.Resent(r, kept)
}

// Saving is what a compaction that leaves kept tokens saves over the calls
// until the next one: each sends the replaced tokens no more, which it
// would have read from the cache.
func (c Cycle) Saving(r Rates, kept int) float64 {
	return c.Calls(kept) * float64(max(c.Estimate-kept, 0)) * r.CachedInput
}

// Rate is the bill per call over the cycle a compaction leaving kept tokens
// starts: its cost spread over the calls until the next one, plus the
// cached part those calls read (from kept up to the trigger, on average
// halfway). What every call adds uncached is the same whatever the depth
// and is left out.
func (c Cycle) Rate(r Rates, kept int) float64 {
	return c.Cost(r, kept)/c.Calls(kept) + r.CachedInput*float64(kept+c.Trigger)/2
}

// Resent is what the kept part behind the first replaced message costs
// once more: read from the cache before, sent anew at the write price now.
func (c Cycle) Resent(r Rates, kept int) float64 {
	if c.Cold {
		return 0
	}
	return float64(max(kept-c.Prefix, 0)) * math.Max(r.write()-r.CachedInput, 0)
}

// Pays reports whether a compaction that leaves kept tokens saves, over the
// calls until the next one, at least what re-sending its kept part costs.
// The summarizer is paid for once the result is there, so only the rewrite
// is weighed when deciding to apply it.
func (c Cycle) Pays(r Rates, kept int) bool {
	return c.Saving(r, kept) >= c.Resent(r, kept)
}
