package cost

import (
	"context"
	"time"
)

// Expired reports whether a prompt cache kept ttl after its last use has
// expired at now when the previous model call's reply arrived at last. An
// unknown time (zero) or no lifetime (0) is a warm cache.
func Expired(ttl time.Duration, last, now time.Time) bool {
	return ttl > 0 && !last.IsZero() && now.Sub(last) > ttl
}

// coldNowThird: a synchronous hook compacts a cold call at or above the
// last 1/coldNowThird of the way from the target (CompactTo) to the
// trigger (CompactAt): 0.6 of the window in the defaults. Chosen from the
// bill with the trajectories' pauses and a 5-minute cache
// (`go run ./cmd/benchcompare -sim`, the TTL table's einocompact-aligned /
// Eino, OpenAI-like, many-small-results / few-huge-results /
// many-user-turns): 0.900 / 0.919 / 0.967 without the rule; with the line
// at 0.4 of the window 0.903 / 0.939 / 0.964, at 0.5 0.895 / 0.938 /
// 0.953, at 0.55 0.891 / 0.927 / 0.956, at 0.6 0.881 / 0.913 / 0.951, at
// 0.65 0.889 / 0.919 / 0.955. Lower lines compact more often (up to 20
// compactions against 9 on many-user-turns), each reading the whole
// conversation uncached.
const coldNowThird = 3

// ColdLine is the call size, in tokens, at and above which a synchronous
// hook compacts a call whose cache is cold: the last third of the way from
// target (CompactTo) to trigger (CompactAt).
func ColdLine(trigger, target float64) float64 {
	return trigger - (trigger-target)/coldNowThird
}

type coldKey struct{}

// WithCold marks ctx as the compaction of a call whose provider cache has
// gone cold: the summarizer is then sent the transcript request, since
// nothing of the agent's prefix is cached to align with.
func WithCold(ctx context.Context) context.Context {
	return context.WithValue(ctx, coldKey{}, true)
}

// Cold reports whether ctx is marked by WithCold.
func Cold(ctx context.Context) bool {
	cold, _ := ctx.Value(coldKey{}).(bool)
	return cold
}
