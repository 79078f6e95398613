package engine

import (
	"math"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// FallbackMargin is compaction.FallbackMargin: the share of the window
// kept free for counting error.
const FallbackMargin = 0.05

// Thresholds returns the trigger and target sizes in tokens before overhead:
// Window*At, and Window*To or, when that lies within 1/13 below the
// trigger, the largest target whose band stays below the trigger
// (BandBelow).
func (h *Engine) Thresholds() (trigger float64, target int) {
	trigger = float64(h.window) * h.at
	return trigger, min(int(float64(h.window)*h.to), BandBelow(trigger))
}

// BandBelow is the largest target whose band above it stays below trigger.
// A SummarizationCompactor stops once within target/planning.CloseEnough
// above its target, and plans a round into that band to spare the newest
// steps (the planner's recentShare). With CompactTo that close to CompactAt,
// such a compaction left the call at the trigger, so the next call compacted
// again, or above the window when CompactAt is 1 (TestHookBandBelowTrigger).
func BandBelow(trigger float64) int {
	return int(math.Ceil(trigger*planning.CloseEnough/(planning.CloseEnough+1))) - 1
}

// Ceiling is the size in tokens at or above which a triggered call is
// compacted whatever happened before: it no longer goes out uncompacted
// while its prepared compaction is still being written (HookConfig.PrepareAt),
// no backoff holds it back, and no result is refused as unprofitable
// (HookConfig.Prices). It lies halfway from CompactAt to the window, and
// never above the fallback line (limit). Halfway leaves room below the
// window for the one tool result that can arrive between two calls (the
// simulation's largest are a quarter of the window), and of the ceilings
// measured in the simulation (0.80 to 0.925 of the window) it is the
// lowest that meets the p95 stall target; see docs/compaction.md.
func (h *Engine) Ceiling() float64 {
	return min(float64(h.window)*(h.at+(1-h.at)/2), h.limit())
}

// limit is the largest call size in tokens the hook lets go out while the
// fallback can remove anything: the window less FallbackMargin.
func (h *Engine) limit() float64 {
	return float64(h.window) * (1 - FallbackMargin)
}

// Window returns the window and the CompactAt and CompactTo fractions the
// engine was built with.
func (h *Engine) Window() (window int, at, to float64) { return h.window, h.at, h.to }
