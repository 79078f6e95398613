package bench

import (
	"encoding/binary"
	"hash/fnv"
	"time"
)

// Block is one unit a provider's prompt cache matches as a whole: the tool
// schemas of a request, or one message. Key identifies its content (two
// blocks with equal keys are identical as sent); Tokens is its size.
type Block struct {
	Key    uint64
	Tokens int
}

// CacheUse is how a provider's cache served one request's input: Read
// tokens were read from the cache, Written were written to it (billed as
// cache writes where the provider charges them), and the rest of the input
// was plain, uncached input. Matched is how many leading blocks were found
// identical to a request sent before, whether or not the cache could use
// all of them (an automatic prefix cache rounds down to its steps).
type CacheUse struct {
	Read, Written, Matched int
}

// CacheModel is a provider's prompt cache as the bill sees it. Serve is
// called once per request, in the order the requests were sent, with the
// request's blocks and how many of them lead it as tools and system
// messages; it returns how the request was served and remembers what it
// leaves in the cache.
// Every request reaches the machine that holds its prefix (OpenAI routes by
// the first ~256 tokens and a prompt_cache_key). Without BillConfig
// CacheTTL the cache never expires, right for a run with seconds between
// calls; with it, the models below forget what was not used for longer
// (see expiring), so a request after a long pause is served uncached.
type CacheModel interface {
	Serve(blocks []Block, lead int) CacheUse
}

// expiring is a CacheModel whose entries expire: setTTL sets the lifetime
// (0: never), at the time of the next Serve. An entry (a cached prefix) not
// used for longer than the lifetime is gone; reading or writing it renews
// it, as at Anthropic ("refreshed for no additional cost each time the
// cached content is used") and OpenAI (kept after its last use).
type expiring interface {
	setTTL(ttl time.Duration)
	at(now time.Duration)
}

// clock is the time part of the expiring cache models.
type clock struct {
	ttl, now time.Duration
}

func (c *clock) setTTL(ttl time.Duration) { c.ttl = ttl }
func (c *clock) at(now time.Duration)     { c.now = now }

// alive reports whether an entry last used at used is still cached.
func (c *clock) alive(used time.Duration) bool { return c.ttl <= 0 || c.now-used <= c.ttl }

// NoCache is a provider without prompt caching: everything is uncached.
type NoCache struct{}

// Serve implements CacheModel.
func (NoCache) Serve([]Block, int) CacheUse { return CacheUse{} }

// The rules of OpenAI's automatic prefix cache (landscape, "Provider
// mechanics"): a prefix is cached from 1,024 tokens on and hits "in
// increments of 128 tokens".
const (
	PrefixMinTokens = 1024
	PrefixStep      = 128
)

// PrefixCache is OpenAI-style automatic prefix caching: every request's
// input is cached as it is sent (tools first, then messages, in order);
// a later request reads the longest prefix it shares with any earlier one,
// where a block (the tool schemas, or a message) matches only if it is
// identical. What is read is that shared prefix rounded down to a multiple
// of PrefixStep tokens, and nothing when it is under PrefixMinTokens.
// Writes cost nothing extra (Written stays 0).
type PrefixCache struct {
	clock
	nodes map[prefixEdge]int32 // the trie of every prefix sent
	used  []time.Duration      // by node: when a request last sent its prefix
	next  int32
}

type prefixEdge struct {
	parent int32
	key    uint64
}

// NewPrefixCache returns an empty PrefixCache.
func NewPrefixCache() *PrefixCache {
	return &PrefixCache{nodes: map[prefixEdge]int32{}, used: make([]time.Duration, 1), next: 1}
}

// Serve implements CacheModel.
func (c *PrefixCache) Serve(blocks []Block, _ int) CacheUse {
	node, shared, matched := int32(0), 0, 0
	for _, b := range blocks {
		child, ok := c.nodes[prefixEdge{node, b.Key}]
		// A prefix is used whenever a longer one is, so once one has
		// expired every longer one has too.
		if !ok || !c.alive(c.used[child]) {
			break
		}
		node, shared, matched = child, shared+b.Tokens, matched+1
		c.used[child] = c.now
	}
	// Everything after the shared prefix is new to the cache.
	for _, b := range blocks[matched:] {
		c.nodes[prefixEdge{node, b.Key}] = c.next
		node = c.next
		c.used = append(c.used, c.now)
		c.next++
	}
	use := CacheUse{Matched: matched}
	if shared >= PrefixMinTokens {
		use.Read = shared - shared%PrefixStep
	}
	return use
}

// BreakpointCache is a cache that holds only what a request marked: each
// request sets a breakpoint after its last block (Anthropic's automatic
// caching puts it on the last cacheable block) and, with System, one more
// after its leading block of tools and system messages. A later request
// reads the longest prefix that ends exactly where an earlier request set a
// breakpoint, found by walking back from each of its own breakpoints at
// most Lookback blocks (Anthropic checks 20; 0 means no limit, as GPT-5.6's
// explicit mode matches the latest breakpoints "without a content-block
// lookback limit"). The tokens between the end of what was read and the
// request's last breakpoint are written; a prefix shorter than MinTokens
// is neither written nor read.
type BreakpointCache struct {
	Lookback  int
	MinTokens int
	System    bool
	clock
	// written: the hashes of the prefixes ending at a breakpoint, and when
	// each was last written or read.
	written map[uint64]time.Duration
}

// NewAnthropicCache returns the Anthropic model: a breakpoint after the
// last block, a 20-block lookback, 1,024 tokens at least (the minimum of
// the Sonnet and Opus 4.1/4 models in the landscape's table).
func NewAnthropicCache() *BreakpointCache {
	return &BreakpointCache{Lookback: 20, MinTokens: 1024}
}

// NewExplicitCache returns the explicit-breakpoint variant: breakpoints
// after the leading tools and system messages and after the last block,
// matched exactly with no lookback limit, 1,024 tokens at least.
func NewExplicitCache() *BreakpointCache {
	return &BreakpointCache{MinTokens: 1024, System: true}
}

// Serve implements CacheModel; with System, a breakpoint follows the first
// lead blocks.
func (c *BreakpointCache) Serve(blocks []Block, lead int) CacheUse {
	if c.written == nil {
		c.written = map[uint64]time.Duration{}
	}
	if len(blocks) == 0 {
		return CacheUse{}
	}
	hashes := make([]uint64, len(blocks)) // hashes[i]: the prefix of blocks[:i+1]
	ends := make([]int, len(blocks))      // ends[i]: its tokens
	h := fnv.New64a()
	var buf [8]byte
	total := 0
	for i, b := range blocks {
		binary.LittleEndian.PutUint64(buf[:], b.Key)
		h.Write(buf[:])
		hashes[i] = h.Sum64()
		total += b.Tokens
		ends[i] = total
	}
	points := []int{len(blocks) - 1}
	if c.System && lead > 0 && lead < len(blocks) {
		points = []int{lead - 1, len(blocks) - 1}
	}
	// The read: the longest prefix ending at an earlier breakpoint, within
	// the lookback of one of this request's breakpoints.
	hit := -1
	for _, p := range points {
		low := 0
		if c.Lookback > 0 {
			low = max(p-c.Lookback, 0)
		}
		for j := p; j >= low && j > hit; j-- {
			if used, ok := c.written[hashes[j]]; ok && c.alive(used) {
				hit = j
				break
			}
		}
	}
	if hit >= 0 {
		c.written[hashes[hit]] = c.now
	}
	use := CacheUse{Matched: hit + 1}
	read := 0
	if hit >= 0 {
		read = ends[hit]
	}
	use.Read = read
	// The writes: every breakpoint past the read, large enough to cache.
	last := -1
	for _, p := range points {
		if p > hit && ends[p] >= c.MinTokens {
			c.written[hashes[p]] = c.now
			last = p
		}
	}
	if last >= 0 {
		use.Written = ends[last] - read
	}
	return use
}
