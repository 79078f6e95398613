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
