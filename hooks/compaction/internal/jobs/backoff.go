package jobs

import (
	"slices"
	"sync"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// The backoff after a failed compaction: a triggered compaction that failed
// (the compactor erred, every summarizer round failed, or its result was
// not smaller, under a ctx that had not ended; see Report.Err) is not
// tried again for the same conversation until its estimate has grown by
// Growth of the window or Steps model calls have passed, whichever comes
// first, unless the coming call is at or above the ceiling halfway from
// CompactAt to the window (CompactionHook.ceiling), which is compacted
// whatever happened before. A dead summarizer then costs one attempt every
// few calls instead of one per call.
const (
	Growth = 0.10
	Steps  = 8
	// backoffMemory bounds how many conversations a Backoffs remembers.
	backoffMemory = 4096
	// backoffPerAnchor bounds how many of them share a first non-system
	// message (a few-shot prefix).
	backoffPerAnchor = 64
)

// Backoffs remembers the failed compactions of the conversations a hook
// serves. A conversation is known by its content as it stood at the
// failure: the entry holds the number of messages then and their prefix
// digest, and a later call belongs to that conversation when it begins with
// those messages, the rule by which prepared compactions are matched.
// Neither the first message nor the first non-system one would do: servers
// often start every conversation with one shared system prompt, and some
// with the same few-shot exchange, and one conversation's failure then held
// back all the others. Content, not pointers, so that a middleware copying
// every message still finds its conversation's entry. Entries are filed by
// the digest of the first non-system message (Anchor), so a lookup hashes a
// prefix only for the conversations sharing it. The zero value is ready.
type Backoffs struct {
	mu      sync.Mutex
	entries map[digest.Sum][]Backoff
	n       int
}

// Backoff is where a conversation stood when its compaction failed: its
// estimate and step then.
type Backoff struct {
	Estimate, Step int
	// length and prefix identify the conversation: its length and its
	// prefix digest at the failure; last is the digest of its last message
	// then, compared first because it is cached (the prefix digest hashes).
	length       int
	last, prefix digest.Sum
}

// matches reports whether messages continues the conversation e was
// recorded for.
func (e *Backoff) matches(messages []*schema.Message) bool {
	return len(messages) >= e.length && e.length > 0 && digest.Of(messages[e.length-1]) == e.last &&
		digest.Prefix(messages[:e.length]) == e.prefix
}

// Holds reports whether a failed compaction of this conversation still
// holds the next one back, at estimate est. A call at or above ceiling is
// never held back: after a result refused as Unprofitable it is compacted
// whatever it costs (HookConfig.Prices), and after a failure it is the
// last calls before the window that would otherwise go out uncompacted.
func (b *Backoffs) Holds(messages []*schema.Message, est, step, window int, ceiling float64) bool {
	if float64(est) >= ceiling {
		return false
	}
	e, ok := b.latest(messages)
	return ok && e.Holds(est, step, window)
}

// latest returns the newest entry kept for a conversation messages
// continues: a conversation that failed twice is judged by its latest
// failure.
func (b *Backoffs) latest(messages []*schema.Message) (Backoff, bool) {
	key, ok := Anchor(messages)
	if !ok {
		return Backoff{}, false
	}
	b.mu.Lock()
	list := slices.Clone(b.entries[key])
	b.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].matches(messages) {
			return list[i], true
		}
	}
	return Backoff{}, false
}

// Holds reports whether an attempt that did not apply at e still holds back
// the next one at estimate est and step step: the conversation has grown by
// less than Growth of the window and fewer than Steps calls have passed. A
// step below e's (a later run counting its steps from 0 again) is not held
// back. Prepared compactions that fail follow the same rule (see prepare).
func (e Backoff) Holds(est, step, window int) bool {
	grown := float64(est-e.Estimate) >= Growth*float64(window)
	return !grown && step-e.Step < Steps && step >= e.Step
}

// Record notes the outcome of a triggered compaction: a failure (compacted
// false, at estimate est and step step) starts or restarts the
// conversation's backoff, a success ends it.
func (b *Backoffs) Record(messages []*schema.Message, compacted bool, est, step int) {
	key, ok := Anchor(messages)
	if !ok {
		return
	}
	b.mu.Lock()
	list := b.entries[key]
	b.mu.Unlock()
	// Hash outside the lock; the list is only ever replaced, not edited.
	kept := make([]Backoff, 0, len(list)+1)
	for _, e := range list {
		if !e.matches(messages) {
			kept = append(kept, e)
		}
	}
	if !compacted {
		kept = append(kept, Backoff{Estimate: est, Step: step, length: len(messages),
			last: digest.Of(messages[len(messages)-1]), prefix: digest.Prefix(messages)})
	}
	if len(kept) > backoffPerAnchor {
		kept = kept[len(kept)-backoffPerAnchor:]
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.entries == nil {
		b.entries = map[digest.Sum][]Backoff{}
	}
	b.n += len(kept) - len(b.entries[key])
	if b.n > backoffMemory {
		// Forgetting a backoff costs one attempt.
		clear(b.entries)
		b.n = len(kept)
	}
	if len(kept) == 0 {
		delete(b.entries, key)
		return
	}
	b.entries[key] = kept
}

// HoldsUntilCeiling reports whether a hold (Hold) kept for the conversation
// messages continues holds its call at estimate est and step step back: any
// call below ceiling, of the same run (a step below the hold's is a later
// run counting from 0 again).
func (b *Backoffs) HoldsUntilCeiling(messages []*schema.Message, est, step int, ceiling float64) bool {
	if float64(est) >= ceiling {
		return false
	}
	e, ok := b.latest(messages)
	return ok && step >= e.Step
}

// Hold keeps a hold for the conversation messages, left at estimate est by
// the compaction at step step. Record keeps an entry for a compaction that
// did not apply; that is the entry a hold needs.
func (b *Backoffs) Hold(messages []*schema.Message, est, step int) {
	if len(messages) == 0 {
		return
	}
	b.Record(messages, false, est, step)
}

// Forget drops the hold kept for the conversation messages continues.
func (b *Backoffs) Forget(messages []*schema.Message) {
	if len(messages) == 0 {
		return
	}
	b.Record(messages, true, 0, 0)
}
