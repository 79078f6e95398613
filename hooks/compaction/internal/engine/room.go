package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// Room: a compaction must buy room below the trigger. One that leaves the
// coming call within a step or so of CompactAt is paid for again at the next
// tool result: the fx demo compacted 7 times in 16 calls, each result 160 to
// 800 tokens below a 2,800-token trigger while a step added 300 to 1,100
// (issue 32 item 5). The room a compaction buys is measured in steps: the
// tokens between the coming call and the trigger divided by the median
// growth of the conversation's agent steps (Report.RoomSteps).
//
// A synchronous compaction that buys less than roomWanted steps goes deeper
// at once: a deep compaction (Report.Deep) of its result, which summarizes
// everything older than the verbatim floor (a fifth of the window) while
// sparing MinKeepSteps. When that is not allowed (the compaction was deep
// already, or the floor and the newest steps are all that is left) or still
// buys too little, the Report says so (NoRoom) and the hook holds the
// conversation's next triggered calls back below the ceiling (RoomHeld):
// repeating the compaction would buy as little. From the ceiling on a call
// is compacted as usual. A prepared compaction (PrepareAt) that buys too
// little is not followed by a synchronous one, which would stall the call:
// the rest is prepared in the background, and the held calls leave it time
// to be written until the ceiling.

// roomWanted is the room, in median steps, a compaction should leave below
// the trigger: with less, the next step or the one after reaches it again.
const roomWanted = 2

// StepGrowth is the median size, by the hook's counter, of the agent steps
// messages hold (an assistant reply that is no compactor's note, with the
// tool results that follow it), and at least a hundredth of the window, the
// least cycleOf assumes a call adds.
func (h *Engine) StepGrowth(ctx context.Context, messages []*schema.Message) (int, error) {
	var sizes []int
	for _, s := range stepSpans(messages) {
		n, err := h.counter.Count(ctx, messages[s[0]:s[1]], nil)
		if err != nil {
			return 0, err
		}
		sizes = append(sizes, n)
	}
	return max(medianInt(sizes), h.window/100, 1), nil
}

// stepSpans returns the [start, end) of every agent step in messages: an
// assistant message without a compaction marker and the tool messages
// right after it.
func stepSpans(messages []*schema.Message) [][2]int {
	var out [][2]int
	for i, m := range messages {
		if m == nil || m.Role != schema.Assistant || message.HasKey(m) {
			continue
		}
		j := i + 1
		for j < len(messages) && messages[j] != nil && messages[j].Role == schema.Tool {
			j++
		}
		out = append(out, [2]int{i, j})
	}
	return out
}

// medianInt is the median of vs (the mean of the middle two when their
// number is even), 0 for none.
func medianInt(vs []int) int {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// measureRoom sets r.StepGrowth from before (the conversation the
// compaction started from) and r.RoomSteps from the call r leaves.
func (h *Engine) measureRoom(ctx context.Context, before []*schema.Message, r *Report) error {
	g, err := h.StepGrowth(ctx, before)
	if err != nil {
		return err
	}
	r.StepGrowth = g
	r.RoomSteps = h.roomSteps(r, g)
	return nil
}

// wrote reports whether after holds a message that is not in before: what
// the compactor wrote (a summary, a note). A hold is kept for the compacted
// conversation by its content (see jobs.Backoffs), and one made only of the
// caller's messages, such as the system prompt and the request alone, can
// begin other conversations too: a hold for it would hold them back.
// By content, as holds are matched.
func wrote(before, after []*schema.Message) bool {
	old := make(map[digest.Sum]bool, len(before))
	for _, m := range before {
		old[digest.Of(m)] = true
	}
	return slices.ContainsFunc(after, func(m *schema.Message) bool { return !old[digest.Of(m)] })
}

// roomSteps is the room below the trigger the call r leaves, in steps of
// growth tokens.
func (h *Engine) roomSteps(r *Report, growth int) float64 {
	trigger, _ := h.Thresholds()
	return (trigger - float64(r.TokensAfter+r.Overhead)) / float64(growth)
}

// buyRoom judges the room a triggered compaction that applied bought (see
// Room above), going deeper or reporting NoRoom. before is the conversation
// the compaction started from.
func (h *Engine) buyRoom(ctx context.Context, state *hooks.State, before []*schema.Message, r *Report) error {
	if !r.Compacted || !r.Triggered {
		return nil
	}
	// A compaction of this conversation replaces what a hold was kept for.
	h.noRoom.Forget(before)
	if err := h.measureRoom(ctx, before, r); err != nil {
		return err
	}
	if r.RoomSteps >= roomWanted {
		return nil
	}
	if err := h.goDeeper(ctx, state, before, r); err != nil {
		return err
	}
	if r.RoomSteps >= roomWanted {
		return nil
	}
	r.NoRoom = true
	if wrote(before, state.Messages) {
		h.noRoom.Hold(state.Messages, r.TokensAfter+r.Overhead, r.Step)
	}
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction bought little room and nothing deeper is allowed; not compacting this conversation again below the ceiling",
			"step", r.BeforeStep(), "tokens_after", r.TokensAfter, "room_steps", r.RoomSteps, "step_growth", r.StepGrowth,
			"ceiling_tokens", h.Ceiling())
	}
	return nil
}

// goDeeper follows a synchronous compaction that left r.RoomSteps below
// roomWanted with a deep one of its result: everything older than the
// verbatim floor is summarized, MinKeepSteps spared. It leaves r as it was
// when the deep compaction applies nothing (not allowed, declined, failed,
// or not smaller): the first compaction stands.
func (h *Engine) goDeeper(ctx context.Context, state *hooks.State, before []*schema.Message, r *Report) error {
	if r.Deep || r.Prepared || r.Shared || r.Fallback != "" || h.sharing != nil {
		return nil
	}
	// The prices chose the usual depth assuming it reaches its target;
	// weigh the deep compaction against the call it did leave. Under
	// AimAtCompactTo, or where the deep one costs more per call, nothing
	// deeper is allowed.
	keep, err := h.billKeep(ctx, before, r.Estimated, r.Overhead, r.TokensAfter+r.Overhead, h.VerbatimFloor())
	if err != nil || keep < 0 {
		return err
	}
	first := *r
	r.Deep, r.Keep, r.Compacted = true, keep, false
	shallow := state.Messages
	if err := h.compactNow(ctx, state, r); err != nil || !r.Compacted || r.Unprofitable {
		rounds, d := r.Rounds, r.Duration
		*r = first
		// Its summarizer calls were made all the same.
		r.Rounds, r.Duration = rounds, d
		return err
	}
	r.Deeper = true
	r.RoomSteps = h.roomSteps(r, r.StepGrowth)
	h.log.DebugContext(ctx, "compaction went deeper to buy room", "step", r.BeforeStep(), "tokens_before", first.TokensAfter,
		"tokens_after", r.TokensAfter, "room_steps", r.RoomSteps, "messages_before", len(shallow), "messages_after", len(state.Messages))
	return nil
}

// Waits reports whether a triggered call goes out uncompacted, below the
// ceiling, because its prepared compaction is still being written
// (deferred) or its conversation's last compaction bought too little room
// (roomHeld).
func (h *Engine) Waits(ctx context.Context, state *hooks.State, r *Report) bool {
	return h.deferred(ctx, state, r) || h.roomHeld(ctx, state, r)
}

// finish follows a triggered call's compaction: it judges the room bought
// (buyRoom), then runs the model-free fallback when the call is still
// above the fallback line.
// The room is judged as part of the compaction: when that fails (a
// counter's error, the run's ctx ending during the deeper compaction), the
// compaction fails as a whole, and State is put back as the hook found it
// (before its messages, r.ProviderTokens its ContextTokens).
func (h *Engine) finish(ctx context.Context, state *hooks.State, before []*schema.Message, r *Report) error {
	if err := h.buyRoom(ctx, state, before, r); err != nil {
		state.Messages, state.ContextTokens = before, r.ProviderTokens
		r.Compacted, r.Deeper, r.NoRoom, r.MessagesAfter, r.TokensAfter = false, false, false, len(before), r.TokensBefore
		return withCtxErr(ctx, fmt.Errorf("compaction: judging the room it bought: %w", err))
	}
	h.fallBack(ctx, state, r)
	return nil
}

// roomHeld handles a triggered call below the ceiling whose conversation's
// last compaction bought too little room (Report.NoRoom): the call goes out
// uncompacted and the Report says so (RoomHeld). With PrepareAt, the
// compaction the ceiling will apply is prepared meanwhile.
func (h *Engine) roomHeld(ctx context.Context, state *hooks.State, r *Report) bool {
	if !h.noRoom.HoldsUntilCeiling(state.Messages, r.Estimated, r.Step, h.Ceiling()) {
		return false
	}
	r.RoomHeld = true
	if h.PrepareAt > 0 {
		r.Preparing = h.prepareForCeiling(ctx, state, r.Estimated)
	}
	h.log.DebugContext(ctx, "compaction held: the last one bought too little room; waiting for the ceiling", "step", r.BeforeStep(),
		"estimated_tokens", r.Estimated, "ceiling_tokens", h.Ceiling())
	if h.observe != nil {
		h.observe(ctx, r)
	}
	return true
}

// prepareForCeiling prepares, for a held call estimated at est, the
// compaction the ceiling will apply. A finished one prepared from an older
// snapshot (right after the compaction that bought too little room) would
// keep everything appended since verbatim and land near the trigger
// again: in the fx demo it left the call 0.1 steps above it. Once the
// next step is expected to reach the ceiling, such a job, roomWanted steps
// or more behind, gives way to one of the conversation as it stands.
func (h *Engine) prepareForCeiling(ctx context.Context, state *hooks.State, est int) bool {
	// With a Store the replaced job's result stays shared under the same
	// conversation, and the new job would take it from there.
	if h.sharing != nil {
		return h.Prepare(ctx, state, est)
	}
	g, err := h.StepGrowth(ctx, state.Messages)
	if err == nil && float64(est+g) >= h.Ceiling() {
		j, _ := h.Jobs.Find(state.Messages, false, time.Now())
		if j != nil && j.Finished() && len(stepSpans(state.Messages[len(j.Snapshot):])) >= roomWanted && h.Jobs.Remove(j) {
			h.drop(ctx, j, "a newer snapshot is prepared for the ceiling")
		}
	}
	return h.Prepare(ctx, state, est)
}
