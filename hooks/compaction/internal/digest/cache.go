package digest

import (
	"sync"
	"unsafe"
	"weak"

	"github.com/cloudwego/eino/schema"
)

// cache remembers the digests of messages by their identity, as the token
// counter's cost cache remembers costs: an entry is made at a message's
// address with a weak pointer to it, and matches a message only while that
// weak pointer still points to it (a message later allocated at the same
// address never picks up the old digest) and the cheap Fingerprint of its
// Role and Content headers has not changed. Bounded at maxDigests entries:
// past that, the entries of collected messages are dropped, and everything
// when that frees too little.
type cache struct {
	mu      sync.Mutex
	entries map[uintptr]entry
}

type entry struct {
	msg   weak.Pointer[schema.Message]
	print uint64
	sum   Sum
}

const maxDigests = 1 << 16

// digests is shared by every hook: a digest depends on the message alone.
var digests = &cache{entries: map[uintptr]entry{}}

func (c *cache) of(m *schema.Message) Sum {
	if m == nil {
		return compute(nil)
	}
	a, print := Addr(m), Fingerprint(m)
	c.mu.Lock()
	e, ok := c.entries[a]
	c.mu.Unlock()
	if ok && e.print == print && e.msg.Value() == m {
		return e.sum
	}
	sum := compute(m)
	e = entry{msg: weak.Make(m), print: print, sum: sum}
	c.mu.Lock()
	if len(c.entries) >= maxDigests {
		for k, old := range c.entries {
			if old.msg.Value() == nil {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxDigests-maxDigests/4 {
			clear(c.entries)
		}
	}
	c.entries[a] = e
	c.mu.Unlock()
	return sum
}

// Addr returns m's address, the key of a cache by message identity.
func Addr(m *schema.Message) uintptr { return uintptr(unsafe.Pointer(m)) }

// Fingerprint mixes the headers (data address and length) of the message's
// Role and Content: the fields a caller is likeliest to set again, and the
// only ones on the first cache line of the message. A full fingerprint of
// every header the measure reads cost as much as the rest of a cached count
// together (the message's other lines are not otherwise read), and an edit
// behind a header would escape it anyway.
func Fingerprint(m *schema.Message) uint64 {
	if m == nil {
		return 0
	}
	str := func(s string) uint64 {
		return uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))) ^ uint64(len(s))<<48
	}
	h := str(m.Content)*0x9E3779B97F4A7C15 + str(string(m.Role))*0xC2B2AE3D27D4EB4F
	return h ^ h>>29
}
