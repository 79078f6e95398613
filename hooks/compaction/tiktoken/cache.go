package tiktoken

import (
	"crypto/sha256"
	"sync"
)

// segmentCache maps a segment's content to its token count. Keys are SHA-256
// digests, so the cache holds 40 bytes per entry instead of the text, and a
// wrong hit would need a hash collision. When full it is emptied: the
// conversations being compacted are re-seen every model call, so the working
// set refills within one count.
type segmentCache struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]int
}

func newSegmentCache(max int) *segmentCache {
	return &segmentCache{max: max, entries: make(map[[sha256.Size]byte]int)}
}

func segmentKey(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

func (c *segmentCache) get(k [sha256.Size]byte) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.entries[k]
	return n, ok
}

func (c *segmentCache) put(k [sha256.Size]byte, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[k] = n
}

// len reports the number of cached segments.
func (c *segmentCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
