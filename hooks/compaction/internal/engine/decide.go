package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// A triggered call's path, in the order CompactionHook.Decide takes it:
// Gauge, Aim, CompactTriggered (a prepared result, a shared one, or a
// compaction now, then the room it bought), and Settle (prepare.go). A
// result is applied only after the checks of checked and apply.

// Gauge estimates the coming call and places it against the thresholds:
// r.Estimated, r.Trigger, r.Triggered and r.ColdCache.
func (h *Engine) Gauge(ctx context.Context, state *hooks.State, r *Report) error {
	est, err := h.Estimate(ctx, state.Messages, state.Tools, state.ContextTokens)
	if err != nil {
		return withCtxErr(ctx, err)
	}
	trigger, _ := h.Thresholds()
	r.Estimated, r.Trigger = est, trigger
	// Above the fallback line a call is compacted even when CompactAt is
	// higher: the provider would reject it for its length.
	r.Triggered = float64(est) >= trigger || float64(est) > h.limit()
	r.ColdCache = h.cold(state)
	// Checked first: this runs before every model call, and building the
	// record's arguments allocates even when debug logging is off.
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction estimate", "step", state.StepCount+1, "estimated_tokens", est,
			"provider_tokens", state.ContextTokens, "trigger_tokens", trigger, "triggered", r.Triggered)
	}
	return nil
}

// Aim sets what a triggered compaction of messages, state's conversation,
// aims for: their size (r.TokensBefore), the part of the estimate outside
// them (r.Overhead), the target for the messages (r.Target) and how deep it
// goes under the prices (r.Deep).
func (h *Engine) Aim(ctx context.Context, state *hooks.State, messages []*schema.Message, r *Report) error {
	msgTokens, err := h.counter.Count(ctx, messages, nil)
	if err != nil {
		return withCtxErr(ctx, fmt.Errorf("compaction: counting messages: %w", err))
	}
	r.TokensBefore, r.TokensAfter = msgTokens, msgTokens
	r.Overhead = r.Estimated - msgTokens
	if r.Overhead < 0 {
		h.log.WarnContext(ctx, "TokenCounter estimated more tokens for the messages than the estimated total context size; the counter may overestimate",
			"message_tokens", msgTokens, "estimated_tokens", r.Estimated)
	}
	_, base := h.Thresholds()
	r.Target = max(base-r.Overhead, 0)
	if r.Keep, err = h.billKeep(ctx, messages, r.Estimated, r.Overhead, r.Target+r.Overhead, h.VerbatimFloor()); err != nil {
		return withCtxErr(ctx, err)
	}
	r.Deep = r.Keep >= 0
	h.warnFixedPart(ctx, messages, state.Tools, base)
	// Debug: the outcome has its own record (Debug when routine, Warn when
	// something failed); a library logs nothing routine at Info.
	if h.log.Enabled(ctx, slog.LevelDebug) {
		h.log.DebugContext(ctx, "compaction triggered", "step", state.StepCount+1, "estimated_tokens", r.Estimated,
			"trigger_tokens", r.Trigger, "target_tokens", r.Target, "overhead_tokens", r.Overhead, "messages", len(messages))
	}
	return nil
}

// CompactTriggered compacts a triggered call whose conversation was
// messages: with the prepared result when one is usable, else now (unless
// the call came early for a prepared one), then buys room below the trigger
// (finish) and, with PrepareAt, starts preparing the next compaction when
// this one left the call at or above PrepareAt.
func (h *Engine) CompactTriggered(ctx context.Context, state *hooks.State, messages []*schema.Message, early bool, r *Report) error {
	done, err := false, error(nil)
	if h.PrepareAt > 0 {
		done, err = h.usePrepared(ctx, state, r)
	}
	if !done && err == nil && !early {
		err = h.compactNow(ctx, state, r)
	}
	if err == nil {
		err = h.finish(ctx, state, messages, r)
	}
	if h.PrepareAt > 0 && err == nil && r.Compacted && !r.Preparing {
		// A compaction that leaves the call at or above PrepareAt (what
		// was appended while a prepared one was written is kept) starts
		// preparing the next one now rather than at the next call: one
		// more huge tool result could otherwise carry the conversation
		// past the ceiling before it is written.
		r.Preparing = h.prepareAfterCompaction(ctx, state, r.TokensAfter+r.Overhead, messages)
	}
	return err
}

// compactNow compacts a snapshot of State.Messages and waits for the
// result: the synchronous compaction, also the fallback when no prepared
// result is usable. When the conversation was rewritten while the compactor
// worked (also in place, in the caller's backing array), the result is
// discarded and the rewrite kept (see apply); the next triggered call
// compacts the rewritten conversation. r.TokensAfter is the size of State.Messages on entry.
func (h *Engine) compactNow(ctx context.Context, state *hooks.State, r *Report) error {
	if h.sharing != nil {
		if done, err := h.compactShared(ctx, state, r); done || err != nil {
			return err
		}
	}
	// A snapshot, as prepared jobs take: the compactor must not read the
	// caller's backing array while something rewrites it in place (a
	// middleware redacting with append(s[:i], ...)), and only a copy lets
	// apply see such a rewrite and discard this result, which would bring
	// the rewritten content back (TestInPlaceRewriteDuringCompactionWins).
	messages := slices.Clone(state.Messages)
	// This compaction's outcome replaces that of a prepared one it follows.
	r.Err = nil
	jctx := request.WithTools(ctx, state.Tools)
	if r.ColdCache {
		// Nothing of the agent's prefix is cached: see coldCacheOf in request.go.
		jctx = cost.WithCold(jctx)
	}
	j := h.newJob(jctx, messages, r.TokensAfter, r.Target, r)
	compacted, err := h.compact(ctx, j, r)
	if err != nil || compacted == nil {
		return err
	}
	return withCtxErr(ctx, h.apply(ctx, state, messages, compacted, j.tokens, j.resultTokens, r))
}

// compact runs j and waits for it, or for ctx to end: a compactor that
// ignores ctx then finishes in the background, its result discarded, and
// Close waits for it. It adds the job's rounds and time to r and returns the
// compacted conversation, nil when the compactor declined.
func (h *Engine) compact(ctx context.Context, j *job, r *Report) ([]*schema.Message, error) {
	j.Await()
	if !h.start(j) {
		h.runJob(j)
		h.publishShared(j)
	}
	select {
	case <-j.Done():
		r.Duration += j.duration
	case <-ctx.Done():
		// Stop the compactor if it listens; if not, its goroutine ends on
		// its own and nothing reads what it returns.
		j.cancel()
		r.Duration += time.Since(j.Started)
	}
	r.Rounds = append(r.Rounds, j.rounds.take()...)
	if cerr := ctx.Err(); cerr != nil {
		// The run ended while the compactor worked. Whatever it returned,
		// a cancelled run must say so and keep its conversation, also when
		// a custom compactor declined or ignored ctx.
		h.log.DebugContext(ctx, "compaction abandoned: the run's context ended", "step", r.BeforeStep(), "error", cerr.Error())
		var jerr error
		if j.Finished() {
			jerr = j.err
		}
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, errors.Join(cerr, jerr))
	}
	return h.checked(ctx, j, r)
}

// checked judges a finished job: its error, a declined compaction, a result
// that breaks tool-call pairing. A compactor that declined because every
// summarizer round failed leaves the cause in r.Err (see Report.Err) and
// returns no error: RaiseOnFailure decides whether the run fails.
func (h *Engine) checked(ctx context.Context, j *job, r *Report) ([]*schema.Message, error) {
	if j.err != nil && errors.Is(j.err, errNotShared) {
		// Not the compactor's failure: the caller compacts itself.
		h.log.DebugContext(ctx, "shared compaction unusable", "step", r.BeforeStep(), "error", j.err.Error())
		return nil, nil
	}
	if j.err != nil {
		h.log.WarnContext(ctx, "compaction failed", "step", r.BeforeStep(), "error", j.err.Error())
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, j.err)
	}
	if j.result == nil {
		if cause := h.declineCause(j); cause != nil {
			// The compactor returned nothing because its model failed
			// (RaiseOnFailure false): that is a failure, not a
			// conversation with nothing left to compact.
			r.Err = cause
			h.log.WarnContext(ctx, "compaction failed: the summarizer failed and nothing was compacted", "step", r.BeforeStep(), "error", cause.Error())
			return nil, nil
		}
		h.log.DebugContext(ctx, "compaction declined: nothing left to compact", "step", r.BeforeStep(), "target_tokens", j.target)
		return nil, nil
	}
	// The hook does not trust its compactor: a custom one that orphans a
	// tool result would get every later model call rejected by the provider.
	if err := shape.NewFaults(j.Snapshot, j.result); err != nil {
		h.log.ErrorContext(ctx, "compaction refused: the compactor broke tool-call pairing", "step", r.BeforeStep(), "error", err.Error())
		return nil, fmt.Errorf("compaction: %s: %w", h.kind, err)
	}
	return j.result, nil
}

// declineCause returns why the finished job j returned no result although
// its compactor called a model: an error wrapping that of its last failed
// round. It returns nil when no round failed: the compactor found nothing it
// could compact (only the protected newest steps are left, or the
// conversation fits), which is no failure and starts no backoff.
func (h *Engine) declineCause(j *job) error {
	var last error
	failed, rounds := 0, j.rounds.take()
	for _, rd := range rounds {
		if rd.Err != nil {
			failed, last = failed+1, rd.Err
		}
	}
	if last == nil {
		return nil
	}
	return fmt.Errorf("compaction: %s: %d of %d summarizer rounds failed, nothing was compacted: %w", h.kind, failed, len(rounds), last)
}

// apply swaps the compacted conversation into state, keeping any messages
// appended since snapshot was taken (see shape.MergeAppended), and rewrites
// ContextTokens to match it. before is the counter's size of snapshot,
// left that of result when already measured (0: not measured).
func (h *Engine) apply(ctx context.Context, state *hooks.State, snapshot, result []*schema.Message, before, left int, r *Report) error {
	compacted, ok := shape.MergeAppended(snapshot, state.Messages, result)
	if !ok {
		h.log.WarnContext(ctx, "the conversation was rewritten while compaction ran; keeping that rewrite and dropping this compaction",
			"step", r.BeforeStep(), "messages_before", r.MessagesBefore, "messages_now", len(state.Messages))
		return nil
	}
	// Judge the compactor on what it was given and returned: messages
	// appended meanwhile are in neither, and must not hide its saving.
	var err error
	if left <= 0 {
		if left, err = h.counter.Count(ctx, result, nil); err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
	}
	if left >= before {
		// A compactor that makes things no smaller has done nothing useful;
		// keeping the original loses nothing.
		h.log.WarnContext(ctx, "compaction ignored: the compactor's result is not smaller",
			"step", r.BeforeStep(), "tokens_before", before, "tokens_after", left)
		r.Err = fmt.Errorf("compaction: %s: the result is not smaller (%d tokens, %d before); ignored", h.kind, left, before)
		return nil
	}
	if len(compacted) != len(result) {
		if left, err = h.counter.Count(ctx, compacted, nil); err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
	}
	if stop, err := h.weigh(ctx, state.Messages, compacted, left, r); err != nil || stop {
		return err
	}
	compacted, left = h.archiveRemoved(ctx, state.Messages, compacted, left, r)
	if state.ContextTokens != 0 {
		// Count only through the last assistant reply: a later hook in the
		// chain adds the trailing tool results itself, as this one did.
		head := compacted[:message.LastAssistant(compacted)+1]
		n, err := h.counter.Count(ctx, head, nil)
		if err != nil {
			return fmt.Errorf("compaction: counting the compacted messages: %w", err)
		}
		// Keep the number positive: 0 would mean "unknown" to the next hook
		// and flip it into counting tool schemas it should not.
		state.ContextTokens = max(n+r.Overhead, 1)
	}
	state.Messages = compacted
	r.Compacted, r.MessagesAfter, r.TokensAfter = true, len(compacted), left
	h.log.DebugContext(ctx, "compaction applied", "step", r.BeforeStep(), "messages_before", r.MessagesBefore,
		"messages_after", r.MessagesAfter, "tokens_before", r.TokensBefore, "tokens_after", left,
		"target_tokens", r.Target, "rounds", len(r.Rounds), "duration", r.Duration, "prepared", r.Prepared, "shared", r.Shared, "fallback", r.Fallback)
	return nil
}

// Estimate returns the expected size of the next model call. With
// contextTokens > 0 it is contextTokens plus the local count of the messages
// after the last assistant message; otherwise the local count of all messages
// and the tool schemas.
func (h *Engine) Estimate(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo, contextTokens int) (int, error) {
	if contextTokens <= 0 {
		n, err := h.counter.Count(ctx, messages, tools)
		if err != nil {
			return 0, fmt.Errorf("compaction: counting the conversation: %w", err)
		}
		return n, nil
	}
	tail := messages[message.LastAssistant(messages)+1:]
	n, err := h.counter.Count(ctx, tail, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting new messages: %w", err)
	}
	return contextTokens + n, nil
}

// withCtxErr makes err wrap ctx.Err() when ctx has ended, so that a counter
// or compactor failing with an error of its own because the run was
// cancelled still reports the cancellation (errors.Is(err, context.Canceled)).
func withCtxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("compaction: cancelled: %w", errors.Join(cerr, err))
	}
	return err
}
