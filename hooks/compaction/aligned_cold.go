package compaction

import "context"

// A synchronous compaction of a call whose cache has gone cold
// (Report.ColdCache) gains nothing from the cache-aligned request: the
// agent's prefix it would send is no longer cached, so the summarizer
// would read all of it, tool schemas and whole tool results, uncached; and
// the compacted conversation the agent sends next shares no prefix with it
// beyond the system prompt. The transcript request sends less (no tool
// schemas, long texts cut to their head and tail, MaxTextTokens), so the
// hook asks for it then. A compaction prepared in the background is not
// concerned: its request follows the agent's call, which has just written
// the cache again.

type coldCacheKey struct{}

// withColdCache marks ctx as the compaction of a call whose cache is cold.
func withColdCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, coldCacheKey{}, true)
}

// coldCacheOf reports whether ctx is marked by withColdCache.
func coldCacheOf(ctx context.Context) bool {
	cold, _ := ctx.Value(coldCacheKey{}).(bool)
	return cold
}
