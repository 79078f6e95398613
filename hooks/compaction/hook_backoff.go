package compaction

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/cloudwego/eino/schema"
)

// The backoff after a failed compaction: a triggered compaction that failed
// (the compactor erred, every summarizer round failed, or its result was
// not smaller, under a ctx that had not ended; see Report.Err) is not
// tried again for the same conversation until its estimate has grown by
// backoffGrowth of the window or backoffSteps model calls have passed,
// whichever comes first, unless the coming call is at or above the ceiling
// halfway from CompactAt to the window (CompactionHook.ceiling), which is
// compacted whatever happened before. A dead summarizer then costs one
// attempt every few calls instead of one per call.
const (
	backoffGrowth = 0.10
	backoffSteps  = 8
	// backoffMemory bounds how many conversations the hook remembers.
	backoffMemory = 4096
	// backoffPerAnchor bounds how many of them share a first non-system
	// message (a few-shot prefix).
	backoffPerAnchor = 64
)

// backoffs remembers the failed compactions of the conversations a hook
// serves. A conversation is known by its content as it stood at the
// failure: the entry holds the number of messages then and their
// PrefixDigest, and a later call belongs to that conversation when it
// begins with those messages, the rule by which prepared compactions are
// matched. Neither the first message nor the first non-system one would
// do: servers often start every conversation with one shared system prompt,
// and some with the same few-shot exchange, and one conversation's failure
// then held back all the others. Content, not pointers, so that a middleware
// copying every message still finds its conversation's entry. Entries are
// filed by the digest of the first non-system message (anchorKey), so a
// lookup hashes a prefix only for the conversations sharing it.
type backoffs struct {
	mu      sync.Mutex
	entries map[Digest][]backoffEntry
	n       int
}

// backoffEntry is where a conversation stood when its compaction failed.
type backoffEntry struct {
	estimate, step int
	// length and prefix identify the conversation: its length and its
	// PrefixDigest at the failure; last is the digest of its last message
	// then, compared first because it is cached (PrefixDigest hashes).
	length       int
	last, prefix Digest
}

// matches reports whether messages continues the conversation e was
// recorded for.
func (e *backoffEntry) matches(messages []*schema.Message) bool {
	return len(messages) >= e.length && e.length > 0 && MessageDigest(messages[e.length-1]) == e.last &&
		PrefixDigest(messages[:e.length]) == e.prefix
}

// holds reports whether a failed compaction of this conversation still
// holds the next one back, at estimate est. A call at or above ceiling is
// never held back: after a result refused as Unprofitable it is compacted
// whatever it costs (HookConfig.Prices), and after a failure it is the
// last calls before the window that would otherwise go out uncompacted.
func (b *backoffs) holds(messages []*schema.Message, est, step, window int, ceiling float64) bool {
	if float64(est) >= ceiling {
		return false
	}
	e, ok := b.latest(messages)
	return ok && e.holds(est, step, window)
}

// latest returns the newest entry kept for a conversation messages
// continues: a conversation that failed twice is judged by its latest
// failure.
func (b *backoffs) latest(messages []*schema.Message) (backoffEntry, bool) {
	key, ok := anchorKey(messages)
	if !ok {
		return backoffEntry{}, false
	}
	b.mu.Lock()
	list := slices.Clone(b.entries[key])
	b.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].matches(messages) {
			return list[i], true
		}
	}
	return backoffEntry{}, false
}

// holds reports whether an attempt that did not apply at e still holds back
// the next one at estimate est and step step: the conversation has grown by
// less than backoffGrowth of the window and fewer than backoffSteps calls
// have passed. A step below e's (a later run counting its steps from 0
// again) is not held back.
// Prepared compactions that fail follow the same rule (see prepare).
func (e backoffEntry) holds(est, step, window int) bool {
	grown := float64(est-e.estimate) >= backoffGrowth*float64(window)
	return !grown && step-e.step < backoffSteps && step >= e.step
}

// record notes the outcome of a triggered compaction: a failure starts (or
// restarts) the conversation's backoff, a success ends it.
func (b *backoffs) record(messages []*schema.Message, r *Report) {
	key, ok := anchorKey(messages)
	if !ok {
		return
	}
	b.mu.Lock()
	list := b.entries[key]
	b.mu.Unlock()
	// Hash outside the lock; the list is only ever replaced, not edited.
	kept := make([]backoffEntry, 0, len(list)+1)
	for _, e := range list {
		if !e.matches(messages) {
			kept = append(kept, e)
		}
	}
	if !r.Compacted {
		kept = append(kept, backoffEntry{estimate: r.Estimated, step: r.Step, length: len(messages),
			last: MessageDigest(messages[len(messages)-1]), prefix: PrefixDigest(messages)})
	}
	if len(kept) > backoffPerAnchor {
		kept = kept[len(kept)-backoffPerAnchor:]
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.entries == nil {
		b.entries = map[Digest][]backoffEntry{}
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

// backedOff handles a triggered call while a failed compaction holds the
// conversation back: the call goes out uncompacted, the Report says so.
func (h *CompactionHook) backedOff(ctx context.Context, messages []*schema.Message, r *Report) bool {
	if !h.backoff.holds(messages, r.Estimated, r.Step, h.window, h.ceiling()) {
		return false
	}
	r.BackedOff = true
	h.log.DebugContext(ctx, "compaction backed off after a failed attempt", "step", r.BeforeStep(), "estimated_tokens", r.Estimated)
	if h.observer != nil {
		h.observer.ObserveCompaction(ctx, *r)
	}
	return true
}

// settle records a triggered compaction's outcome for the backoff, and
// says so when the coming call still exceeds the window: Report.Overflow and
// an Error record. The call is not blocked: the estimate is the counter's,
// the provider has the last word, and a run must not fail because the
// compactor did (RaiseOnFailure decides that).
func (h *CompactionHook) settle(ctx context.Context, messages []*schema.Message, r *Report) {
	if !r.Compacted && ctx.Err() != nil {
		// The run ended, not the compactor: a run resumed with the same
		// messages must not find its compaction held back.
		return
	}
	// A decline without a failure (e.g. only the protected newest step
	// exists) starts no backoff: one call later there may be something to
	// compact, and such a decline cost no model call
	// (TestHookBacksOffOnlyAfterAFailure).
	if r.Compacted || r.Err != nil || r.Unprofitable {
		h.backoff.record(messages, r)
	}
	// Debug: the outcome itself already has its one record.
	if !r.Compacted && r.Err != nil && h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction did not apply; not trying again for this conversation until it grows or a few calls pass",
			"step", r.BeforeStep(), "estimated_tokens", r.Estimated, "retry_after_calls", backoffSteps,
			"retry_after_tokens", r.Estimated+int(backoffGrowth*float64(h.window)))
	}
	if ctx.Err() != nil {
		return
	}
	est := r.Estimated
	if r.Compacted {
		est = r.TokensAfter + r.Overhead
	}
	if est <= h.window {
		return
	}
	r.Overflow = true
	why := "nothing compactable is left"
	if r.Err != nil {
		why = "compaction failed: " + r.Err.Error()
	}
	h.log.ErrorContext(ctx, "the coming model call is estimated above the context window: "+why, "step", r.BeforeStep(),
		"estimated_tokens", est, "window_tokens", h.window)
}
