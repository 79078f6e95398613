package compaction

import (
	"context"
	"log/slog"
	"sync"
	"weak"

	"github.com/cloudwego/eino/schema"
)

// The backoff after a failed compaction: a triggered compaction that did not
// apply (the compactor failed, declined or returned nothing smaller, under a
// ctx that had not ended) is not
// tried again for the same conversation until its estimate has grown by
// backoffGrowth of the window or backoffSteps model calls have passed,
// whichever comes first, unless the coming call would exceed the window.
// A dead summarizer then costs one attempt every few calls instead of one
// per call.
const (
	backoffGrowth = 0.10
	backoffSteps  = 8
	// backoffMemory bounds how many conversations the hook remembers.
	backoffMemory = 4096
)

// backoffs remembers the failed compactions of the conversations a hook
// serves. A conversation is known by the identity of its first message that
// is not a system message (anchorOf), as prepared compactions are: agents
// create it once per run and keep it (messages are immutable by contract),
// and a failed compaction leaves it in place. The first message would not
// do: servers often start every conversation with one shared system prompt
// value, and one conversation's failure then held back all the others. A
// weak pointer lets the entry go with the run.
type backoffs struct {
	mu      sync.Mutex
	entries map[weak.Pointer[schema.Message]]backoffEntry
}

// backoffEntry is where a conversation stood when its compaction failed.
type backoffEntry struct {
	estimate, step int
}

func backoffKey(messages []*schema.Message) (weak.Pointer[schema.Message], bool) {
	anchor := anchorOf(messages)
	if anchor == nil {
		return weak.Pointer[schema.Message]{}, false
	}
	return weak.Make(anchor), true
}

// holds reports whether a failed compaction of this conversation still
// holds the next one back.
func (b *backoffs) holds(messages []*schema.Message, est, step, window int) bool {
	if est > window {
		return false
	}
	key, ok := backoffKey(messages)
	if !ok {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	return ok && e.holds(est, step, window)
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
	key, ok := backoffKey(messages)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Compacted {
		delete(b.entries, key)
		return
	}
	if b.entries == nil {
		b.entries = map[weak.Pointer[schema.Message]]backoffEntry{}
	}
	if len(b.entries) >= backoffMemory {
		b.sweepLocked()
	}
	b.entries[key] = backoffEntry{estimate: r.Estimated, step: r.Step}
}

// sweepLocked drops the entries of conversations that are gone, then, if
// that freed nothing, all of them: forgetting a backoff costs one attempt.
func (b *backoffs) sweepLocked() {
	for k := range b.entries {
		if k.Value() == nil {
			delete(b.entries, k)
		}
	}
	if len(b.entries) >= backoffMemory {
		clear(b.entries)
	}
}

// backedOff handles a triggered call while a failed compaction holds the
// conversation back: the call goes out uncompacted, the Report says so.
func (h *CompactionHook) backedOff(ctx context.Context, messages []*schema.Message, r *Report) bool {
	if !h.backoff.holds(messages, r.Estimated, r.Step, h.window) {
		return false
	}
	r.BackedOff = true
	h.log.DebugContext(ctx, "compaction backed off after a failed attempt", "step", r.Step, "estimated_tokens", r.Estimated)
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
	h.backoff.record(messages, r)
	// Debug: the outcome itself already has its one record.
	if !r.Compacted && h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction did not apply; not trying again for this conversation until it grows or a few calls pass",
			"step", r.Step, "estimated_tokens", r.Estimated, "retry_after_calls", backoffSteps,
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
	if r.Err != nil || (len(r.Rounds) > 0 && !r.Compacted) {
		why = "compaction failed"
	}
	h.log.ErrorContext(ctx, "the coming model call is estimated above the context window: "+why, "step", r.Step,
		"estimated_tokens", est, "window_tokens", h.window)
}
