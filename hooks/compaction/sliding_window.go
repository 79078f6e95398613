package compaction

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// StrategySlidingWindow is the marker strategy of SlidingWindowCompactor's
// omission notes.
const StrategySlidingWindow = message.StrategySlidingWindow

// DefaultOmissionNote is the note SlidingWindowCompactor leaves where it
// removed messages. {num_removed} becomes the number of messages removed.
const DefaultOmissionNote = "[Context note: {num_removed} earlier messages were dropped from this conversation to make room; their content is gone for good.]"

// SlidingWindowConfig configures a SlidingWindowCompactor. A nil config, or
// nil fields, take the defaults.
type SlidingWindowConfig struct {
	// MinKeepSteps is how many of the newest agent steps of the current task
	// are always kept, even when they alone exceed the target. Default 1;
	// must be >= 0.
	MinKeepSteps *int
	// OmissionNote is the text of the user message inserted where messages
	// were removed; every "{num_removed}" in it becomes the number removed
	// (plain replacement, other braces are left alone). Nil means
	// DefaultOmissionNote; "" drops messages silently, with no note.
	OmissionNote *string
}

// SlidingWindowCompactor forgets the oldest part of a conversation: whole
// historical turns first (a real user message and everything up to the next
// one), then the oldest agent steps of the current task (an assistant message
// with its tool results). It never splits a step, never drops the leading
// system messages or the user's current request, and always keeps the newest
// MinKeepSteps steps. Where it removed messages it inserts an omission note,
// a user message carrying the StrategySlidingWindow marker with the fields
// "removed_messages" and "kept_messages".
//
// It calls no model, so it is cheap; what it drops is lost. It keeps no
// per-run state and is safe for concurrent use.
type SlidingWindowCompactor struct {
	minKeep  int
	note     string
	withNote bool
}

var _ Compactor = (*SlidingWindowCompactor)(nil)

// NewSlidingWindowCompactor validates cfg and returns the compactor. A nil
// cfg means all defaults. ctx is unused; it is there so every compactor is
// built alike.
func NewSlidingWindowCompactor(_ context.Context, cfg *SlidingWindowConfig) (*SlidingWindowCompactor, error) {
	c := &SlidingWindowCompactor{minKeep: 1, note: DefaultOmissionNote, withNote: true}
	if cfg == nil {
		return c, nil
	}
	if cfg.MinKeepSteps != nil {
		if *cfg.MinKeepSteps < 0 {
			return nil, fmt.Errorf("compaction: SlidingWindowConfig.MinKeepSteps must be at least 0, got %d", *cfg.MinKeepSteps)
		}
		c.minKeep = *cfg.MinKeepSteps
	}
	if cfg.OmissionNote != nil {
		c.note = *cfg.OmissionNote
		c.withNote = c.note != ""
	}
	return c, nil
}

// Compact implements Compactor. It returns (nil, nil) when the conversation
// already fits, when nothing may be removed, when the only removable messages
// are its own earlier notes (replacing one note with another frees nothing),
// or when the note would be larger than what it replaces. The budget is spent
// newest first: the current task's steps before any history, each group
// counted on its own.
func (c *SlidingWindowCompactor) Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compaction: sliding window: %w", err)
	}
	if counter == nil {
		counter = DefaultCounter()
	}
	w := swCounter{ctx: ctx, messages: messages, counter: counter}
	total, err := w.count(messages)
	if err != nil {
		return nil, err
	}
	if total <= targetTokens {
		return nil, nil
	}

	lay := shape.LayoutOf(messages, isWindowNote)
	keep, firstStep, err := c.pick(w, lay, targetTokens)
	if err != nil {
		return nil, err
	}
	kept, removed := swSplit(messages, keep)
	if len(removed) == 0 {
		return nil, nil
	}
	if !c.withNote {
		return kept, nil
	}
	if onlyWindowNotes(removed) {
		return nil, nil
	}
	out := c.withOmissionNote(lay, keep, firstStep, kept, len(removed))
	// A note longer than the little it replaces would grow the conversation
	// and make the hook trigger again at once: that is no compaction.
	after, err := w.count(out)
	if err != nil {
		return nil, err
	}
	if after >= total {
		return nil, nil
	}
	return out, nil
}

// pick marks the messages that stay: the leading system block and the
// current request always; then, when the current task alone is too big, no
// history and the newest steps while each still fits (never fewer than
// MinKeepSteps), else every step and the newest turns while each still
// fits. firstStep is the oldest step kept.
func (c *SlidingWindowCompactor) pick(w swCounter, lay shape.Layout, targetTokens int) (keep []bool, firstStep int, err error) {
	keep = make([]bool, len(w.messages))
	protected := make([]int, 0, lay.SystemEnd+1)
	for i := range lay.SystemEnd {
		protected = append(protected, i)
	}
	if lay.Task >= 0 {
		protected = append(protected, lay.Task)
	}
	swMarkAll(keep, protected)
	protTokens, err := w.tally(protected)
	if err != nil {
		return nil, 0, err
	}
	available := targetTokens - protTokens
	taskTokens, err := w.tally(swFlatten(lay.Steps))
	if err != nil {
		return nil, 0, err
	}

	firstTurn := len(lay.Turns)
	if taskTokens > available {
		// The current task alone is too big: history goes entirely, and
		// steps are kept newest first while each still fits.
		first, err := w.newestFitting(lay.Steps, available)
		if err != nil {
			return nil, 0, err
		}
		firstStep = min(first, max(len(lay.Steps)-c.minKeep, 0))
	} else if firstTurn, err = w.newestFitting(lay.Turns, available-taskTokens); err != nil {
		return nil, 0, err
	}
	for _, g := range lay.Turns[firstTurn:] {
		swMarkAll(keep, g)
	}
	for _, g := range lay.Steps[firstStep:] {
		swMarkAll(keep, g)
	}
	shape.KeepPairsWhole(w.messages, keep)
	return keep, firstStep, nil
}

// withOmissionNote returns kept with the omission note for removed messages.
// The note stands where the gap is: before the kept history when only
// history went, else between the current request and its kept steps.
func (c *SlidingWindowCompactor) withOmissionNote(lay shape.Layout, keep []bool, firstStep int, kept []*schema.Message, removed int) []*schema.Message {
	limit := lay.SystemEnd
	if firstStep > 0 {
		limit = lay.TaskStart()
	}
	at := 0
	for i := range limit {
		if keep[i] {
			at++
		}
	}
	note := schema.UserMessage(strings.ReplaceAll(c.note, "{num_removed}", strconv.Itoa(removed)))
	note.Extra = map[string]any{MetaKey: NewMarker(StrategySlidingWindow, 0, map[string]any{
		"removed_messages": removed,
		"kept_messages":    len(kept),
	})}
	out := make([]*schema.Message, 0, len(kept)+1)
	out = append(out, kept[:at]...)
	out = append(out, note)
	return append(out, kept[at:]...)
}

// isWindowNote reports whether m is one of the window's own omission notes,
// which a new note replaces: a user message (the role the window writes
// them in) with the StrategySlidingWindow marker. A system message carrying
// that marker is someone else's message: it is kept or removed like any
// other, never taken for a note.
func isWindowNote(m *schema.Message) bool {
	return m != nil && m.Role == schema.User && IsStrategy(m, StrategySlidingWindow)
}

// swCounter counts groups of a conversation for the sliding window.
type swCounter struct {
	ctx      context.Context
	messages []*schema.Message
	counter  TokenCounter
}

func (w swCounter) count(msgs []*schema.Message) (int, error) {
	n, err := w.counter.Count(w.ctx, msgs, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: sliding window: counting: %w", err)
	}
	return n, nil
}

// tally counts the messages at idx.
func (w swCounter) tally(idx []int) (int, error) { return w.count(swPick(w.messages, idx)) }

// newestFitting returns the index of the oldest of the newest groups that
// fit budget, each counted on its own and taken while it still fits;
// len(groups) when the newest does not.
func (w swCounter) newestFitting(groups [][]int, budget int) (int, error) {
	first := len(groups)
	for i := len(groups) - 1; i >= 0; i-- {
		n, err := w.tally(groups[i])
		if err != nil {
			return 0, err
		}
		if n > budget {
			break
		}
		budget -= n
		first = i
	}
	return first, nil
}

// swSplit parts messages into those keep marks and the others, in order.
func swSplit(messages []*schema.Message, keep []bool) (kept, removed []*schema.Message) {
	for i, m := range messages {
		if keep[i] {
			kept = append(kept, m)
		} else {
			removed = append(removed, m)
		}
	}
	return kept, removed
}

// onlyWindowNotes reports whether every message of removed is one of the
// window's own notes.
func onlyWindowNotes(removed []*schema.Message) bool {
	for _, m := range removed {
		if !isWindowNote(m) {
			return false
		}
	}
	return true
}

// swPick returns the messages at idx, in order.
func swPick(messages []*schema.Message, idx []int) []*schema.Message {
	out := make([]*schema.Message, len(idx))
	for k, i := range idx {
		out[k] = messages[i]
	}
	return out
}

func swFlatten(groups [][]int) []int {
	var out []int
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func swMarkAll(keep []bool, idx []int) {
	for _, i := range idx {
		keep[i] = true
	}
}

var _ Identifier = (*SlidingWindowCompactor)(nil)

// CompactionIdentity implements Identifier.
func (c *SlidingWindowCompactor) CompactionIdentity() string {
	return fmt.Sprintf("sliding_window/1 min_keep=%d note=%v:%s", c.minKeep, c.withNote, textID(c.note))
}
