package compaction

import (
	"context"
	"time"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
)

// The cache's clock (Prices.CacheTTL). A provider keeps a prompt cache for
// minutes after its last use; a call made later than that, after a long
// tool run or a user's pause, is sent uncached whatever the hook does. A
// compaction applied then invalidates nothing: the hook counts no
// invalidated prefix for it (Report.InvalidatedTokens 0), the
// pay-for-itself rule finds nothing to re-send, and a compaction prepared
// in the background (HookConfig.PrepareAt) that is ready is applied at
// once, below CompactAt, rather than at the trigger, where applying it
// would make the provider drop a warm prefix. The conversation the trigger
// would have compacted is the same either way (the prepared result plus
// what was appended since), so applying early only makes the calls in
// between smaller.
//
// A synchronous hook (no PrepareAt) has nothing ready: compacting a cold
// call early costs a summarizer round that reads the conversation uncached
// (the cache-aligned request's prefix is cold too) and a compaction sooner,
// against a cold call sent smaller and a later compaction at the trigger
// that would have re-sent the verbatim floor. Near the trigger the second
// outweighs the first; further down it does not. cost.ColdLine places the
// line: see its comment for the measurements.

// cacheTTL is the cache lifetime the hook assumes: that of
// HookConfig.Prices, or of the assumed PricesOpenAI when they are nil.
func (h *CompactionHook) cacheTTL() time.Duration {
	if h.prices != nil {
		return h.prices.CacheTTL
	}
	return PricesOpenAI.CacheTTL
}

// cold reports whether the provider's cache of state's conversation has
// expired: the previous model call's reply arrived longer than the cache
// lifetime ago. An unknown time (zero) or no lifetime (0) is a warm cache.
func (h *CompactionHook) cold(state *hooks.State) bool {
	return cost.Expired(h.cacheTTL(), state.LastModelCallAt, h.now())
}

// coldEarly reports whether a call below the trigger is compacted because
// the cache is cold: with a prepared compaction that is ready (prepared),
// or synchronously near the trigger (now).
func (h *CompactionHook) coldEarly(ctx context.Context, state *hooks.State, r *Report) (prepared, now bool) {
	if r.Triggered {
		return false, false
	}
	if h.coldReady(ctx, state, r) {
		return true, false
	}
	return false, h.coldNow(r)
}

// coldReady reports whether a call below the trigger applies a prepared
// compaction because the cache is cold (r.ColdCache): one was prepared for
// this conversation and has finished with a result to apply.
func (h *CompactionHook) coldReady(ctx context.Context, state *hooks.State, r *Report) bool {
	if h.prepareAt == 0 || !r.ColdCache {
		return false
	}
	// Jobs are aged on the wall clock, as prepare started them.
	j, expired := h.jobs.Find(state.Messages, false, time.Now())
	h.dropAll(ctx, expired, "it expired")
	return j != nil && j.Finished() && !j.failed()
}

// coldNow reports whether a synchronous hook compacts a call below the
// trigger because the cache is cold (r.ColdCache) and the call is in the
// last third of the way from the target to the trigger. A hook with
// PrepareAt waits for its prepared compaction instead (coldReady): the
// rule would stall the agent.
func (h *CompactionHook) coldNow(r *Report) bool {
	if h.prepareAt > 0 || !r.ColdCache {
		return false
	}
	trigger, target := h.Thresholds()
	return float64(r.Estimated) >= cost.ColdLine(trigger, float64(target))
}
