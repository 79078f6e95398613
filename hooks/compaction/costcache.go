package compaction

import (
	"sync"
	"unsafe"
	"weak"

	"github.com/cloudwego/eino/schema"
)

// costCache remembers the cost of the messages of the conversations an
// ApproximateTokenCounter has counted, by the messages' identity, so that a
// conversation counted again before every model call (the hook does so
// whenever the provider reports no usage) costs a check per message already
// seen and a measurement per new one. It is shared by every run the counter
// serves and is safe for concurrent use.
//
// It is organised as sequences, not as one entry per message in a map: a
// conversation is counted again as the same messages in the same order plus
// a few new ones, and walking a remembered sequence beside it reads memory in
// order, where a map lookup per message cost more than measuring the
// message's length does in Eino's counter. A sequence is found by the
// addresses of the conversation's first two messages (a system prompt may be
// shared by many runs; the second message seldom is), and is followed for as
// long as its entries match: the rest of the conversation is measured and
// the sequence extended or replaced.
//
// Identity: an entry matches a message when it was made at the message's
// address and a weak pointer to the message it was made for still points to
// the message being counted. A weak pointer does not keep its message alive,
// and once that message is collected it points nowhere, so a new message
// later allocated at the same address can never pick up the old cost.
//
// Messages are immutable by contract (Eino's, and this package's: compactors
// never edit a message, they replace it). Each entry also keeps a fingerprint
// of the message's fields as headers (each string's and slice's address and
// length), so a message whose role, Content, ReasoningContent, ToolName,
// tool-call list or part lists were set to other values is measured again.
// What it cannot see is an edit behind a header: a tool call's arguments or a
// part's text changed in place within the same slice. A caller that edits
// messages that way must count with ApproximateConfig.DisableCache.
//
// Bound: at most max entries over all sequences. When a store would exceed
// it, the sequences whose first two messages were collected (nothing can
// match them again) are dropped; if that leaves more than three quarters,
// everything is, so a working set that moved on refills within one count.
// Conversations shorter than minCachedRun are not remembered: they cost
// little to measure, and the hook's count of the messages since the last
// reply (when usage is known) would otherwise fill the cache with sequences
// that are never asked for again.
type costCache struct {
	mu   sync.RWMutex
	max  int
	n    int // entries over all sequences
	seqs map[seqKey]*costSeq
}

type seqKey struct{ first, second uintptr }

type costSeq struct{ entries []costEntry }

type costEntry struct {
	addr  uintptr
	msg   weak.Pointer[schema.Message]
	print uint64
	cost  Cost
}

// defaultCacheEntries bounds the cache at a few megabytes (an entry and the
// weak handle behind it are under a hundred bytes) while holding
// conversations of tens of thousands of messages whole.
const defaultCacheEntries = 1 << 16

const minCachedRun = 8

func newCostCache(max int) *costCache {
	return &costCache{max: max, seqs: make(map[seqKey]*costSeq)}
}

func addr(m *schema.Message) uintptr { return uintptr(unsafe.Pointer(m)) }

func keyOf(messages []*schema.Message) seqKey {
	k := seqKey{first: addr(messages[0])}
	if len(messages) > 1 {
		k.second = addr(messages[1])
	}
	return k
}

// matches reports whether e was made for m, as m is now.
func (e *costEntry) matches(m *schema.Message) bool {
	return e.addr == addr(m) && e.print == fingerprint(m) && e.msg.Value() == m
}

// sum returns the total cost of messages, measuring with measure only those
// past the remembered prefix. The walk shares one read lock; the store takes
// the write lock once.
func (c *costCache) sum(messages []*schema.Message, measure func(*schema.Message) Cost) Cost {
	var total Cost
	if len(messages) < minCachedRun {
		for _, m := range messages {
			total = total.Add(measure(m))
		}
		return total
	}
	key := keyOf(messages)
	c.mu.RLock()
	seq := c.seqs[key]
	var prefix []costEntry
	if seq != nil {
		prefix = seq.entries
		i := 0
		for i < len(messages) && i < len(prefix) && prefix[i].matches(messages[i]) {
			total = total.Add(prefix[i].cost)
			i++
		}
		prefix = prefix[:i]
	}
	c.mu.RUnlock()
	if len(prefix) == len(messages) {
		return total
	}
	fresh := make([]costEntry, 0, len(messages)-len(prefix))
	for _, m := range messages[len(prefix):] {
		e := costEntry{addr: addr(m), cost: measure(m)}
		if m != nil {
			e.msg, e.print = weak.Make(m), fingerprint(m)
		}
		total = total.Add(e.cost)
		fresh = append(fresh, e)
	}
	c.store(key, seq, prefix, fresh)
	return total
}

// store records prefix+fresh as the sequence for key. prefix is a prefix of
// seq.entries, read under the read lock; entries are never written once
// published, and a sequence only grows in place past its current length, so
// prefix stays valid whatever happened meanwhile.
func (c *costCache) store(key seqKey, seq *costSeq, prefix, fresh []costEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.seqs[key]
	if cur != nil && cur == seq && len(cur.entries) == len(prefix) {
		cur.entries = append(cur.entries, fresh...)
		c.n += len(fresh)
	} else {
		if cur != nil {
			c.n -= len(cur.entries)
		}
		entries := make([]costEntry, 0, len(prefix)+len(fresh))
		entries = append(append(entries, prefix...), fresh...)
		c.seqs[key] = &costSeq{entries: entries}
		c.n += len(entries)
	}
	if c.n > c.max {
		c.evict()
	}
}

// evict drops the sequences whose first two messages were collected, or all
// of them when that leaves more than three quarters of the bound. Called
// with mu held.
func (c *costCache) evict() {
	for k, s := range c.seqs {
		if s.entries[0].msg.Value() == nil || s.entries[1].msg.Value() == nil {
			delete(c.seqs, k)
			c.n -= len(s.entries)
		}
	}
	if c.n > c.max-c.max/4 {
		clear(c.seqs)
		c.n = 0
	}
}

// len reports the number of entries over all sequences.
func (c *costCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.n
}

// fingerprint mixes the headers of the fields the counter's measure reads:
// the role, Content, ReasoningContent, ToolName, and the tool-call and part
// lists, each as its data address and length. Setting any of them to another
// value changes it (barring a hash collision); editing the bytes or elements
// behind a header does not. The fields are multiplied by constants of their
// own and summed, so the multiplications do not wait on each other: this runs
// for every message of every cached count.
func fingerprint(m *schema.Message) uint64 {
	if m == nil {
		return 0
	}
	str := func(s string) uint64 {
		return uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))) ^ uint64(len(s))<<48
	}
	h := str(m.Content)*0x9E3779B97F4A7C15 +
		str(m.ReasoningContent)*0xC2B2AE3D27D4EB4F +
		(str(m.ToolName)^str(string(m.Role))<<1)*0x165667B19E3779F9 +
		slice(m.ToolCalls)*0x85EBCA77C2B2AE63 +
		slice(m.UserInputMultiContent)*0xFF51AFD7ED558CCD +
		slice(m.AssistantGenMultiContent)*0xC4CEB9FE1A85EC53 +
		slice(m.MultiContent)*0x94D049BB133111EB
	return h ^ h>>29
}

func slice[E any](s []E) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s)))) ^ uint64(len(s))<<48
}
