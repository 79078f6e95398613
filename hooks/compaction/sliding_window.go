package compaction

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
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
	tally := func(idx []int) (int, error) {
		n, err := counter.Count(ctx, swPick(messages, idx), nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: sliding window: counting: %w", err)
		}
		return n, nil
	}
	total, err := counter.Count(ctx, messages, nil)
	if err != nil {
		return nil, fmt.Errorf("compaction: sliding window: counting: %w", err)
	}
	if total <= targetTokens {
		return nil, nil
	}

	lay := swLayoutOf(messages)
	keep := make([]bool, len(messages))
	protected := make([]int, 0, lay.systemEnd+1)
	for i := range lay.systemEnd {
		protected = append(protected, i)
	}
	if lay.task >= 0 {
		protected = append(protected, lay.task)
	}
	for _, i := range protected {
		keep[i] = true
	}
	protTokens, err := tally(protected)
	if err != nil {
		return nil, err
	}
	available := targetTokens - protTokens
	taskTokens, err := tally(swFlatten(lay.steps))
	if err != nil {
		return nil, err
	}

	firstStep, firstTurn := 0, len(lay.turns)
	if taskTokens > available {
		// The current task alone is too big: history goes entirely, and
		// steps are kept newest first while each still fits.
		budget, first := available, len(lay.steps)
		for i := len(lay.steps) - 1; i >= 0; i-- {
			n, err := tally(lay.steps[i])
			if err != nil {
				return nil, err
			}
			if n > budget {
				break
			}
			budget -= n
			first = i
		}
		firstStep = min(first, max(len(lay.steps)-c.minKeep, 0))
	} else {
		budget := available - taskTokens
		for i := len(lay.turns) - 1; i >= 0; i-- {
			n, err := tally(lay.turns[i])
			if err != nil {
				return nil, err
			}
			if n > budget {
				break
			}
			budget -= n
			firstTurn = i
		}
	}
	for _, g := range lay.turns[firstTurn:] {
		swMarkAll(keep, g)
	}
	for _, g := range lay.steps[firstStep:] {
		swMarkAll(keep, g)
	}
	swKeepPairsWhole(messages, keep)

	var kept, removed []*schema.Message
	for i, m := range messages {
		if keep[i] {
			kept = append(kept, m)
		} else {
			removed = append(removed, m)
		}
	}
	if len(removed) == 0 {
		return nil, nil
	}
	if !c.withNote {
		return kept, nil
	}
	onlyNotes := true
	for _, m := range removed {
		onlyNotes = onlyNotes && isWindowNote(m)
	}
	if onlyNotes {
		return nil, nil
	}

	// The note stands where the gap is: before the kept history when only
	// history went, else between the current request and its kept steps.
	limit := lay.systemEnd
	if firstStep > 0 {
		limit = lay.stepStart
	}
	at := 0
	for i := range limit {
		if keep[i] {
			at++
		}
	}
	note := schema.UserMessage(strings.ReplaceAll(c.note, "{num_removed}", strconv.Itoa(len(removed))))
	note.Extra = map[string]any{MetaKey: NewMarker(StrategySlidingWindow, 0, map[string]any{
		"removed_messages": len(removed),
		"kept_messages":    len(kept),
	})}
	out := make([]*schema.Message, 0, len(kept)+1)
	out = append(out, kept[:at]...)
	out = append(out, note)
	out = append(out, kept[at:]...)
	// A note longer than the little it replaces would grow the conversation
	// and make the hook trigger again at once: that is no compaction.
	after, err := counter.Count(ctx, out, nil)
	if err != nil {
		return nil, fmt.Errorf("compaction: sliding window: counting: %w", err)
	}
	if after >= total {
		return nil, nil
	}
	return out, nil
}

// isWindowNote reports whether m is one of the window's own omission notes,
// which a new note replaces: a user message (the role the window writes
// them in) with the StrategySlidingWindow marker. A system message carrying
// that marker is someone else's message: it is kept or removed like any
// other, never taken for a note.
func isWindowNote(m *schema.Message) bool {
	return m != nil && m.Role == schema.User && IsStrategy(m, StrategySlidingWindow)
}

// swLayout is the shape of a conversation as the sliding window sees it.
type swLayout struct {
	systemEnd int     // end of the leading block of unmarked system messages
	task      int     // index of the user's current request, -1 if none
	stepStart int     // where the current task's steps begin
	turns     [][]int // historical turns, the window's own notes left out
	steps     [][]int // agent steps of the current task
}

// swLayoutOf finds the landmarks: the leading system block, the last real
// user message (the current request), the historical turns before it and the
// agent steps after it.
// The landmarks are the summarizer's (planRegionsOf), so every compactor
// agrees on what the system block and the current request are.
func swLayoutOf(messages []*schema.Message) swLayout {
	r := planRegionsOf(messages)
	lay := swLayout{systemEnd: r.systemEnd, task: r.task}
	lay.stepStart = lay.systemEnd
	if lay.task >= 0 {
		lay.stepStart = lay.task + 1
		for _, turn := range swTurns(messages, lay.systemEnd, lay.task) {
			own := make([]int, 0, len(turn))
			for _, i := range turn {
				if !isWindowNote(messages[i]) {
					own = append(own, i)
				}
			}
			lay.turns = append(lay.turns, own)
		}
	}
	lay.steps = swSteps(messages, lay.stepStart)
	return lay
}

// swTurns splits [start, end) into turns, each starting at a real user
// message and running to the next; anything before the first real user
// message belongs to no turn.
func swTurns(messages []*schema.Message, start, end int) [][]int {
	var out [][]int
	for i := start; i < end; i++ {
		if IsRealUser(messages[i]) {
			out = append(out, []int{i})
		} else if len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], i)
		}
	}
	return out
}

// swSteps lists the agent steps from start on: each assistant message with
// the tool results that immediately follow it. Other messages belong to no
// step.
func swSteps(messages []*schema.Message, start int) [][]int {
	var out [][]int
	for i := start; i < len(messages); i++ {
		if m := messages[i]; m == nil || m.Role != schema.Assistant {
			continue
		}
		step := []int{i}
		for i+1 < len(messages) && IsToolResult(messages[i+1]) {
			i++
			step = append(step, i)
		}
		out = append(out, step)
	}
	return out
}

// swKeepPairsWhole makes keep respect tool-call pairing, so that removing
// messages can never leave a call without its results or a result without its
// call: a result follows its call's fate, and a result whose call is nowhere
// before it (already an orphan, which chat APIs reject) is dropped. For
// ordinary conversations, where steps hold their results, it changes nothing.
func swKeepPairsWhole(messages []*schema.Message, keep []bool) {
	owner := map[string]int{}
	lastCaller := -1
	for i, m := range messages {
		if m == nil {
			continue
		}
		switch {
		case m.Role == schema.Assistant && len(m.ToolCalls) > 0:
			for _, tc := range m.ToolCalls {
				owner[tc.ID] = i
			}
			lastCaller = i
		case IsToolResult(m):
			o, ok := owner[m.ToolCallID]
			if !ok && m.ToolCallID == "" {
				o, ok = lastCaller, lastCaller >= 0
			}
			keep[i] = ok && keep[o]
		}
	}
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
