package compaction

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"sync"
	"weak"

	"github.com/cloudwego/eino/schema"
)

// Identity of messages by content. Within one process the hook knows a
// message by its pointer (messages are immutable by contract, so equal
// pointers mean equal content), which costs nothing. Pointers fail in two
// places: a middleware that copies every message before each model call
// hands the hook new pointers for the same conversation, and a store shared
// by several processes (Store) shares no pointers at all. There the hook
// compares content digests: SHA-256 of a canonical encoding of everything a
// message says (role, texts, name, tool calls with their ids and arguments,
// tool call id and name, reasoning, multi-part content, Extra with its
// markers), leaving out only ResponseMeta, which reports on the call that
// produced the message. encoding/json writes struct fields in declaration
// order and map keys sorted, so one content has one encoding.
//
// Digests are computed only where a pointer comparison failed or a store
// needs one, and cached by pointer (digests), so a conversation counted
// again costs a lookup per message, not a hash.

// Digest is the SHA-256 of a message's canonical encoding, or of a prefix
// of a conversation (PrefixDigest).
type Digest [sha256.Size]byte

// digestVersion names the canonical encoding; it is hashed into every
// prefix digest, so a change of encoding can never match an old digest.
const digestVersion = "einocompact/prefix/v1"

// MessageDigest returns the content digest of m. A message whose Extra holds
// a value encoding/json cannot encode gets a digest of its pointer instead:
// such a message is equal only to itself, as before content identity, and
// never matches a message in another process. A nil message has the digest
// of JSON null.
func MessageDigest(m *schema.Message) Digest {
	return digests.of(m)
}

func computeDigest(m *schema.Message) Digest {
	if m == nil {
		return sha256.Sum256([]byte("null"))
	}
	c := *m
	c.ResponseMeta = nil
	raw, err := json.Marshal(&c)
	if err != nil {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(addr(m)))
		return sha256.Sum256(append([]byte("unencodable:"), b[:]...))
	}
	return sha256.Sum256(raw)
}

// PrefixDigest returns the content digest of messages as a sequence: the
// SHA-256 of the encoding's version, the number of messages and their
// MessageDigests in order. Two conversations have the same PrefixDigest
// only if they hold the same messages, by content, in the same order.
func PrefixDigest(messages []*schema.Message) Digest {
	h := sha256.New()
	h.Write([]byte(digestVersion))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(messages)))
	h.Write(n[:])
	for _, m := range messages {
		d := digests.of(m)
		h.Write(d[:])
	}
	var out Digest
	h.Sum(out[:0])
	return out
}

// sameMessage reports whether a and b say the same thing: the same pointer,
// or the same content digest.
func sameMessage(a, b *schema.Message) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	// Cheap refusals before hashing: most different messages differ here.
	if a.Role != b.Role || len(a.Content) != len(b.Content) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	return digests.of(a) == digests.of(b)
}

// digestCache remembers the digests of messages by their identity, as
// costCache remembers costs: an entry is made at a message's address with a
// weak pointer to it, and matches a message only while that weak pointer
// still points to it (a message later allocated at the same address never
// picks up the old digest) and the cheap fingerprint of its Role and Content
// headers has not changed. Bounded at maxDigests entries: past that, the
// entries of collected messages are dropped, and everything when that frees
// too little.
type digestCache struct {
	mu      sync.Mutex
	entries map[uintptr]digestEntry
}

type digestEntry struct {
	msg   weak.Pointer[schema.Message]
	print uint64
	sum   Digest
}

const maxDigests = 1 << 16

// digests is shared by every hook: a digest depends on the message alone.
var digests = &digestCache{entries: map[uintptr]digestEntry{}}

func (c *digestCache) of(m *schema.Message) Digest {
	if m == nil {
		return computeDigest(nil)
	}
	a, print := addr(m), fingerprint(m)
	c.mu.Lock()
	e, ok := c.entries[a]
	c.mu.Unlock()
	if ok && e.print == print && e.msg.Value() == m {
		return e.sum
	}
	sum := computeDigest(m)
	e = digestEntry{msg: weak.Make(m), print: print, sum: sum}
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
