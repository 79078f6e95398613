package bench

import "testing"

// blk makes a block; tests name contents by small integers.
func blk(key uint64, tokens int) Block { return Block{Key: key, Tokens: tokens} }

// The expectations follow from the stated rules by hand: OpenAI reads the
// shared prefix from 1,024 tokens on, rounded down to 128-token steps,
// blocks matching only whole.
func TestPrefixCacheRules(t *testing.T) {
	t.Parallel()
	tools, system := blk(1, 100), blk(2, 500)
	cases := []struct {
		name     string
		sent     [][]Block // earlier requests, in order
		req      []Block
		read     int
		matched  int
		withheld bool // the request itself must not have been cached before
	}{
		{name: "1,100 shared tokens read as 1,024", sent: [][]Block{{tools, system, blk(3, 500)}},
			req: []Block{tools, system, blk(3, 500), blk(4, 300)}, read: 1024, matched: 3},
		{name: "1,300 shared tokens read as 1,280", sent: [][]Block{{tools, system, blk(3, 700)}},
			req: []Block{tools, system, blk(3, 700), blk(4, 300)}, read: 1280, matched: 3},
		{name: "900 shared tokens are under the minimum", sent: [][]Block{{tools, system, blk(3, 300)}},
			req: []Block{tools, system, blk(3, 300), blk(4, 400)}, read: 0, matched: 3},
		{name: "a changed message ends the match", sent: [][]Block{{tools, system, blk(3, 600), blk(4, 400)}},
			req: []Block{tools, system, blk(5, 600), blk(4, 400)}, read: 0, matched: 2},
		{name: "tools come first: no tools, no match", sent: [][]Block{{tools, system, blk(3, 900), blk(4, 400)}},
			req: []Block{system, blk(3, 900), blk(4, 400)}, read: 0, matched: 0},
		{name: "the longest prefix of any earlier request", sent: [][]Block{
			{tools, system, blk(3, 600), blk(4, 400)},
			{tools, system, blk(3, 600), blk(6, 900)},
		}, req: []Block{tools, system, blk(3, 600), blk(6, 900), blk(7, 10)}, read: 2048, matched: 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache := NewPrefixCache()
			for _, r := range c.sent {
				cache.Serve(r, 0)
			}
			got := cache.Serve(c.req, 0)
			if got.Read != c.read || got.Matched != c.matched || got.Written != 0 {
				t.Fatalf("got %+v, want read %d, matched %d, nothing written", got, c.read, c.matched)
			}
			// Now the whole request is cached: sending it again reads
			// all of it that the steps allow.
			again := cache.Serve(c.req, 0)
			total := 0
			for _, b := range c.req {
				total += b.Tokens
			}
			want := 0
			if total >= PrefixMinTokens {
				want = total - total%PrefixStep
			}
			if again.Read != want || again.Matched != len(c.req) {
				t.Fatalf("resent: got %+v, want read %d of %d blocks", again, want, len(c.req))
			}
		})
	}
}

// Anthropic-style breakpoints: a read only where an earlier request set a
// breakpoint (here after its last block), found within 20 blocks; what is
// between the read and the request's own breakpoint is written.
func TestBreakpointCacheRules(t *testing.T) {
	t.Parallel()
	tools, system := blk(1, 100), blk(2, 500)
	grow := func(base []Block, n int, key uint64) []Block {
		out := append([]Block(nil), base...)
		for i := range n {
			out = append(out, blk(key+uint64(i), 10))
		}
		return out
	}
	first := []Block{tools, system, blk(3, 600)} // 1,200 tokens
	cases := []struct {
		name          string
		cache         func() *BreakpointCache
		sent          [][]Block
		req           []Block
		lead          int
		read, written int
	}{
		{name: "first request writes all of itself", cache: NewAnthropicCache,
			req: first, read: 0, written: 1200},
		{name: "the next request reads the previous breakpoint and writes the rest", cache: NewAnthropicCache,
			sent: [][]Block{first}, req: append(append([]Block(nil), first...), blk(4, 300)), read: 1200, written: 300},
		{name: "a prefix sent before but never marked is not read", cache: NewAnthropicCache,
			sent: [][]Block{first}, req: []Block{tools, system, blk(5, 700)}, read: 0, written: 1300},
		{name: "under 1,024 tokens nothing is written", cache: NewAnthropicCache,
			req: []Block{tools, system, blk(3, 300)}, read: 0, written: 0},
		{name: "20 blocks after a breakpoint still read it", cache: NewAnthropicCache,
			sent: [][]Block{first}, req: grow(first, 20, 100), read: 1200, written: 200},
		{name: "21 blocks after a breakpoint miss it", cache: NewAnthropicCache,
			sent: [][]Block{first}, req: grow(first, 21, 100), read: 0, written: 1410},
		{name: "explicit: no lookback limit", cache: NewExplicitCache,
			sent: [][]Block{first}, req: grow(first, 21, 100), lead: 2, read: 1200, written: 210},
		{name: "explicit: the system breakpoint survives a rewrite", cache: NewExplicitCache,
			sent: [][]Block{{blk(1, 600), blk(2, 600), blk(3, 300)}}, req: []Block{blk(1, 600), blk(2, 600), blk(9, 400)}, lead: 2, read: 1200, written: 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache := c.cache()
			for _, r := range c.sent {
				cache.Serve(r, 2)
			}
			got := cache.Serve(c.req, c.lead)
			if got.Read != c.read || got.Written != c.written {
				t.Fatalf("got %+v, want read %d, written %d", got, c.read, c.written)
			}
		})
	}
}

func TestUsageCost(t *testing.T) {
	t.Parallel()
	u := Usage{Input: 1000, Read: 600, Written: 200, Output: 10}
	cases := []struct {
		prices Prices
		want   float64
	}{
		{PricesNoCache, 200 + 600 + 200 + 80},  // every input token at 1
		{PricesOpenAI, 200 + 60 + 200 + 80},    // writes cost what input does
		{PricesAnthropic, 200 + 60 + 250 + 50}, // 1.25 a write, output 5
		{PricesExplicit, 200 + 60 + 250 + 80},  // 1.25 a write, output 8
		{Prices{CachedInput: 0.5, CacheWrite: 2}, 200 + 300 + 400},
	}
	for _, c := range cases {
		if got := u.Cost(c.prices); got != c.want {
			t.Errorf("%s: cost %v, want %v", c.prices.Name, got, c.want)
		}
	}
}
