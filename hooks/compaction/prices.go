package compaction

import (
	"fmt"
	"math"
	"time"
)

// Prices are a model's token prices relative to an uncached input token,
// which costs 1. A CompactionHook with Prices weighs what a compaction costs
// against what it saves (see HookConfig.Prices and docs/compaction.md).
type Prices struct {
	// CachedInput is the price of an input token read from the provider's
	// prompt cache. Must be >= 0.
	CachedInput float64
	// CacheWrite is the price of an input token written to the cache; 0
	// means the same as an uncached one (1). Must be >= 0.
	CacheWrite float64
	// Output is the price of an output token. Must be >= 0.
	Output float64
	// CacheTTL is how long the provider keeps a prompt cache after its last
	// use: a call made longer than that after the previous model call of
	// the conversation finds nothing cached, so a compaction applied then
	// invalidates nothing (the hook applies a prepared one early and counts
	// no invalidated prefix; see HookConfig.Prices and hooks.State
	// LastModelCallAt). 0: no expiry modelled, the cache is always warm.
	// Must be >= 0. The presets set it.
	CacheTTL time.Duration
}

// Price presets: the multiples of issue 23's bill, which docs/benchmarks.md
// sources, and the cache lifetimes the providers document.
var (
	// PricesOpenAI: automatic prefix caching, cached input 0.1, writes at
	// the uncached price, output 8; a cache kept 5 minutes (OpenAI keeps
	// an in-memory prompt cache for 5 to 10 minutes of inactivity: the
	// lower bound, so the hook never counts on a cache that may be gone).
	PricesOpenAI = Prices{CachedInput: 0.1, Output: 8, CacheTTL: DefaultCacheTTL}
	// PricesAnthropic: cache breakpoints, reads 0.1, writes 1.25, output 5;
	// a cache kept 5 minutes, refreshed on each use (Anthropic's default
	// lifetime; its 1-hour option is Prices{..., CacheTTL: time.Hour}).
	PricesAnthropic = Prices{CachedInput: 0.1, CacheWrite: 1.25, Output: 5, CacheTTL: DefaultCacheTTL}
	// PricesNoCache: no prompt caching, output 8.
	PricesNoCache = Prices{CachedInput: 1, Output: 8}
)

// DefaultCacheTTL is the cache lifetime of the presets PricesOpenAI and
// PricesAnthropic: 5 minutes.
const DefaultCacheTTL = 5 * time.Minute

// PricesPreset returns the preset named "openai", "anthropic" or
// "no_cache".
func PricesPreset(name string) (Prices, bool) {
	switch name {
	case "openai":
		return PricesOpenAI, true
	case "anthropic":
		return PricesAnthropic, true
	case "no_cache":
		return PricesNoCache, true
	}
	return Prices{}, false
}

// Validate reports a price that is negative, NaN or infinite, naming it.
func (p Prices) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"CachedInput", p.CachedInput}, {"CacheWrite", p.CacheWrite}, {"Output", p.Output}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("compaction: Prices.%s must be a finite price >= 0, got %v", f.name, f.v)
		}
	}
	if p.CacheTTL < 0 {
		return fmt.Errorf("compaction: Prices.CacheTTL must be a duration >= 0 (0: no expiry modelled), got %v", p.CacheTTL)
	}
	return nil
}

// write is the price of a token written to the cache.
func (p Prices) write() float64 {
	if p.CacheWrite == 0 {
		return 1
	}
	return p.CacheWrite
}

// cycle describes one compaction and the calls until the next, in tokens
// of the coming call (messages and overhead): the model behind
// HookConfig.Prices.
type cycle struct {
	estimate int // the call's size now
	trigger  int // where the next compaction starts
	prefix   int // what stays as it is at the front (leading system messages)
	growth   int // tokens a call adds, at least 1
	// cold says the provider's cache has expired (Prices.CacheTTL): the
	// coming call is sent uncached whether or not it is compacted, so
	// re-sending what a compaction keeps costs nothing extra.
	cold bool
	// reasoning is the hidden reasoning a summarizer round bills as output
	// besides its summary, learned from the rounds' usage (outputCosts);
	// 0 until a round reported any.
	reasoning int
}

// calls is how many calls pass before the next compaction when this one
// leaves kept tokens: at least one.
func (c cycle) calls(kept int) float64 {
	return math.Max(float64(c.trigger-kept)/float64(c.growth), 1)
}

// cost is what a compaction that leaves kept tokens costs: the summarizer
// reading what it replaces and writing its summary (the summarization
// compactor's output budget, textBudget, plus the hidden reasoning a round
// was seen to bill as output), and the kept part
// behind the first replaced message, which was read from the cache and is
// now sent anew at the write price.
func (c cycle) cost(p Prices, kept int) float64 {
	replaced := max(c.estimate-kept, 0)
	return float64(replaced) + p.Output*float64(textBudget(replaced)+c.reasoning) + c.resent(p, kept)
}

// saving is what a compaction that leaves kept tokens saves over the calls
// until the next one: each sends the replaced tokens no more, which it
// would have read from the cache.
func (c cycle) saving(p Prices, kept int) float64 {
	return c.calls(kept) * float64(max(c.estimate-kept, 0)) * p.CachedInput
}

// rate is the bill per call over the cycle a compaction leaving kept tokens
// starts: its cost spread over the calls until the next one, plus the
// cached part those calls read (from kept up to the trigger, on average
// halfway). What every call adds uncached is the same whatever the depth
// and is left out.
func (c cycle) rate(p Prices, kept int) float64 {
	return c.cost(p, kept)/c.calls(kept) + p.CachedInput*float64(kept+c.trigger)/2
}

// resent is what the kept part behind the first replaced message costs
// once more: read from the cache before, sent anew at the write price now.
func (c cycle) resent(p Prices, kept int) float64 {
	if c.cold {
		return 0
	}
	return float64(max(kept-c.prefix, 0)) * math.Max(p.write()-p.CachedInput, 0)
}

// pays reports whether a compaction that leaves kept tokens saves, over the
// calls until the next one, at least what re-sending its kept part costs.
// The summarizer is paid for once the result is there, so only the rewrite
// is weighed when deciding to apply it.
func (c cycle) pays(p Prices, kept int) bool {
	return c.saving(p, kept) >= c.resent(p, kept)
}
