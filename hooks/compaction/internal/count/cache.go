package count

import (
	"runtime/metrics"
	"slices"
	"sync"
	"weak"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// costCache remembers the cost of the messages of the conversations an
// Approx has counted, by the messages' identity, so that a
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
// addresses of the conversation's first two messages, and is followed for as
// long as its entries match: the rest of the conversation is measured and
// the sequence extended, or a new one filed beside it. A system prompt may be
// shared by many runs, and so may a few-shot exchange after it: up to
// seqsPerKey sequences share a key, and a count follows the one whose entry
// at the conversation's deepest comparable position matches (the one that
// conversation made), so that conversations sharing their start do not
// replace each other's sequence at every count.
//
// Identity: an entry matches a message when it was made at the message's
// address and a weak pointer to the message it was made for still points to
// the message being counted. A weak pointer does not keep its message alive,
// and once that message is collected it points nowhere, so a new message
// later allocated at the same address can never pick up the old cost.
//
// Asking a weak pointer costs about as much as Eino's whole count of a
// message, so it is asked once per garbage collection: a sequence records
// how many of its entries were found alive, and the number of completed
// collections read before that check. While that number has not changed, no
// collection has finished since, so nothing those entries were made for can
// have been freed, and no other message can sit at their addresses: the
// address alone identifies the message. (A collection frees memory only after
// it completes, and the runtime counts it as completed before the world
// restarts, so before any goroutine can allocate in that memory.) After a
// collection, the next count checks every entry through its weak pointer
// again.
//
// Messages are immutable by contract (Eino's, and this package's: compactors
// never edit a message, they replace it), and the cache relies on it. As a
// guard against the commonest slip it also keeps a fingerprint of the
// message's Role and Content headers (data address and length), so a message
// whose Content was set to another string is measured again. Any other edit
// of a counted message (ReasoningContent, tool calls, parts, a tool call's
// arguments changed in place) keeps the old cost. A caller that edits
// messages after they were counted must count with
// Settings.DisableCache (compaction.ApproximateConfig.DisableCache).
//
// Bound: at most max entries over all sequences. A sequence keeps the first
// max messages of a longer conversation; the rest is measured on every
// count. When a store would exceed the bound, the sequences whose first two
// messages were collected (nothing can match them again) are dropped; if
// that leaves more than three quarters, everything is, so a working set that
// moved on refills within one count.
// Conversations shorter than minCachedRun are not remembered: they cost
// little to measure, and the hook's count of the messages since the last
// reply (when usage is known) would otherwise fill the cache with sequences
// that are never asked for again.
type costCache struct {
	mu   sync.RWMutex
	max  int
	n    int // entries over all sequences
	seqs map[seqKey][]*costSeq
}

// seqsPerKey bounds the sequences that share their first two messages; the
// oldest gives way to a new one.
const seqsPerKey = 16

type seqKey struct{ first, second uintptr }

type costSeq struct {
	entries []costEntry
	// checkedLen entries from the start were found alive (or made from a
	// message in hand) after checkedGC collections had completed.
	checkedGC  uint64
	checkedLen int
}

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
	return &costCache{max: max, seqs: make(map[seqKey][]*costSeq)}
}

func keyOf(messages []*schema.Message) seqKey {
	k := seqKey{first: digest.Addr(messages[0])}
	if len(messages) > 1 {
		k.second = digest.Addr(messages[1])
	}
	return k
}

// sum returns the total cost of messages, measuring with measure only those
// past the remembered prefix. The walk shares one read lock; a store, or a
// record of entries checked after a collection, takes the write lock once.
func (c *costCache) sum(messages []*schema.Message, measure func(*schema.Message) Cost) Cost {
	return c.sumEach(messages, measure, nil)
}

// sumEach is sum that also writes each message's cost to each[i], when each
// (as long as messages) is not nil.
func (c *costCache) sumEach(messages []*schema.Message, measure func(*schema.Message) Cost, each []Cost) Cost {
	var total Cost
	note := func(i int, cost Cost) {
		total = total.Add(cost)
		if each != nil {
			each[i] = cost
		}
	}
	if len(messages) < minCachedRun {
		for i, m := range messages {
			note(i, measure(m))
		}
		return total
	}
	// Read before any entry is checked: see the type's comment.
	gcs, gcsOK := completedGCs()
	key := keyOf(messages)
	c.mu.RLock()
	seq := pick(c.seqs[key], messages)
	var prefix []costEntry
	checked := false
	if seq != nil {
		prefix = seq.entries
		trusted := 0
		if gcsOK && seq.checkedGC == gcs {
			trusted = seq.checkedLen
		}
		i := 0
		for i < len(messages) && i < len(prefix) && prefix[i].matches(messages[i], i < trusted) {
			note(i, prefix[i].cost)
			i++
		}
		prefix = prefix[:i]
		checked = gcsOK && i > trusted
	}
	c.mu.RUnlock()
	if len(prefix) == len(messages) {
		if checked {
			c.recordChecked(key, seq, gcs, len(prefix))
		}
		return total
	}
	// A sequence holds at most max entries: past that, messages are
	// measured on every count, and no entry is made that could not be kept.
	rest := messages[len(prefix):]
	kept := rest[:min(len(rest), max(c.max-len(prefix), 0))]
	fresh := make([]costEntry, 0, len(kept))
	for k, m := range kept {
		e := costEntry{addr: digest.Addr(m), cost: measure(m)}
		if m != nil {
			e.msg, e.print = weak.Make(m), digest.Fingerprint(m)
		}
		note(len(prefix)+k, e.cost)
		fresh = append(fresh, e)
	}
	for k, m := range rest[len(kept):] {
		note(len(prefix)+len(kept)+k, measure(m))
	}
	switch {
	case len(fresh) > 0:
		c.store(key, seq, prefix, fresh, gcs, gcsOK)
	case checked:
		c.recordChecked(key, seq, gcs, len(prefix))
	}
	return total
}

// pick returns the sequence of seqs a count of messages follows: the first
// whose entry at the deepest position both have matches the message there
// by address and fingerprint (the walk checks the rest), else the newest.
func pick(seqs []*costSeq, messages []*schema.Message) *costSeq {
	if len(seqs) == 0 {
		return nil
	}
	for _, s := range seqs {
		i := min(len(s.entries), len(messages)) - 1
		if e := &s.entries[i]; e.addr == digest.Addr(messages[i]) && e.print == digest.Fingerprint(messages[i]) {
			return s
		}
	}
	return seqs[len(seqs)-1]
}

// matches reports whether e was made for m, as m is now. trusted skips the
// weak pointer: the caller knows no collection completed since e was last
// found alive.
func (e *costEntry) matches(m *schema.Message, trusted bool) bool {
	if e.addr != digest.Addr(m) || e.print != digest.Fingerprint(m) {
		return false
	}
	return trusted || e.msg.Value() == m
}

// recordChecked notes that the first n entries of seq were found alive after
// gcs collections had completed.
func (c *costCache) recordChecked(key seqKey, seq *costSeq, gcs uint64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds(key, seq) && (gcs > seq.checkedGC || gcs == seq.checkedGC && n > seq.checkedLen) {
		seq.checkedGC, seq.checkedLen = gcs, n
	}
}

// holds reports whether seq is still filed under key. Called with mu held.
func (c *costCache) holds(key seqKey, seq *costSeq) bool {
	return seq != nil && slices.Contains(c.seqs[key], seq)
}

// store records prefix+fresh as a sequence for key: seq extended in place
// when prefix is all of it, else a new sequence filed beside the others
// (the oldest giving way past seqsPerKey). prefix is a prefix of
// seq.entries, read under the read lock; entries are never written once
// published, and a sequence only grows in place past its current length, so
// prefix stays valid whatever happened meanwhile. Every entry of prefix and
// fresh was found alive, or made from a message in hand, after gcs
// collections had completed.
func (c *costCache) store(key seqKey, seq *costSeq, prefix, fresh []costEntry, gcs uint64, gcsOK bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := seq
	if c.holds(key, seq) && len(seq.entries) == len(prefix) {
		cur.entries = append(cur.entries, fresh...)
		c.n += len(fresh)
	} else {
		entries := make([]costEntry, 0, len(prefix)+len(fresh))
		entries = append(append(entries, prefix...), fresh...)
		cur = &costSeq{entries: entries}
		list := c.seqs[key]
		if len(list) >= seqsPerKey {
			c.n -= len(list[0].entries)
			list = slices.Delete(list, 0, 1)
		}
		c.seqs[key] = append(list, cur)
		c.n += len(entries)
	}
	if gcsOK {
		cur.checkedGC, cur.checkedLen = gcs, len(cur.entries)
	}
	if c.n > c.max {
		c.evict()
	}
}

// completedGCs returns how many garbage collections have completed; ok is
// false if the runtime does not report it, and then every check asks the
// weak pointers.
func completedGCs() (n uint64, ok bool) {
	s := [1]metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return s[0].Value.Uint64(), true
}

// evict drops the sequences whose first two messages were collected, or all
// of them when that leaves more than three quarters of the bound. Called
// with mu held.
func (c *costCache) evict() {
	for k, list := range c.seqs {
		kept := list[:0]
		for _, s := range list {
			if s.entries[0].msg.Value() == nil || s.entries[1].msg.Value() == nil {
				c.n -= len(s.entries)
				continue
			}
			kept = append(kept, s)
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(c.seqs, k)
		} else {
			c.seqs[k] = kept
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
