package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// What the hook weighs around its compactor, in this order: the model-free
// fallback for a call still too large after a compaction, the warning when
// the part no compactor removes reaches the target alone, the bill (how deep
// a compaction goes and whether it pays for itself, HookConfig.Prices), and
// the cache's clock (Prices.CacheTTL).

// fallBack runs when a triggered compaction left the coming call estimated
// above the fallback line, ContextWindow less FallbackMargin, whatever the
// compactor said: it failed without failing the run (r.Err set, Decide
// returning no error: a dead summarizer with RaiseOnFailure false, a result
// not smaller), declined (a SummarizationCompactor whose learned summary
// size says a summary cannot help), or shrank the conversation too little.
// The provider would reject such a call with a context-length error, or
// might: the estimate counts the newest messages itself. It compacts
// towards the usual target with the model-free stages in order, each on the
// previous one's output, stopping once the target is reached, and applies
// the result as any compaction. r.Fallback names the stages that changed
// something; r.Err keeps the cause, if any.
func (h *Engine) fallBack(ctx context.Context, state *hooks.State, r *Report) {
	if len(h.fallback) == 0 || ctx.Err() != nil {
		return
	}
	est := r.Estimated
	if r.Compacted {
		est = r.TokensAfter + r.Overhead
	}
	if float64(est) <= h.limit() {
		return
	}
	snapshot := slices.Clone(state.Messages)
	current, size := snapshot, r.TokensAfter
	var used []string
	for _, st := range h.fallback {
		out, err := st.Compact(ctx, current, r.Target)
		if err != nil {
			h.log.WarnContext(ctx, "compaction fallback failed", "step", r.BeforeStep(), "fallback", st.Name, "error", err.Error())
			break
		}
		if out == nil {
			continue
		}
		if size, err = h.counter.Count(ctx, out, nil); err != nil {
			h.log.WarnContext(ctx, "compaction fallback failed: counting its result", "step", r.BeforeStep(), "error", err.Error())
			return
		}
		current, used = out, append(used, st.Name)
		if size <= r.Target {
			break
		}
	}
	if len(used) == 0 || shape.NewFaults(snapshot, current) != nil {
		h.log.WarnContext(ctx, "compaction fallback found nothing it may remove", "step", r.BeforeStep(), "estimated_tokens", est, "window_tokens", h.window)
		return
	}
	// Set before apply, whose "compaction applied" record names it; apply
	// must not replace the cause either (it sets Err only for a result
	// that is not smaller).
	cause, compacted := r.Err, r.Compacted
	r.Fallback, r.Compacted = strings.Join(used, "+"), false
	err := h.apply(ctx, state, snapshot, current, r.TokensAfter, size, r)
	applied := err == nil && r.Compacted
	r.Err, r.Compacted = cause, compacted || applied
	if !applied {
		r.Fallback = ""
		return
	}
	why := "the compaction left the coming call estimated above the context window less the fallback margin"
	if !compacted {
		why = "nothing was compacted and the coming call was estimated above the context window less the fallback margin"
	}
	attrs := []any{"step", r.BeforeStep(), "fallback", r.Fallback, "estimated_tokens", est, "window_tokens", h.window,
		"limit_tokens", int(h.limit()), "tokens_after", r.TokensAfter}
	if cause != nil {
		why = "the compaction failed and the coming call was estimated above the context window less the fallback margin"
		attrs = append(attrs, "cause", cause.Error())
	}
	h.log.WarnContext(ctx, "compaction fell back to a model-free compaction: "+why, attrs...)
}

// warnFixedPart logs a warning when the leading system messages and the tool
// schemas, which no compactor removes, already reach the target: compaction
// then runs on every call and never gets there.
func (h *Engine) warnFixedPart(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo, target int) {
	end := 0
	for end < len(messages) && messages[end] != nil && messages[end].Role == schema.System && !message.HasKey(messages[end]) {
		end++
	}
	fixed, err := h.counter.Count(ctx, messages[:end], tools)
	if err != nil || fixed < target {
		return
	}
	h.log.WarnContext(ctx, "the leading system messages and tool schemas alone reach the compaction target; compaction cannot get under it "+
		"(raise HookConfig.ContextWindow or CompactTo, or shorten the instruction and tool descriptions)",
		"fixed_tokens", fixed, "target_tokens", target, "system_messages", end, "tools", len(tools))
}

// CycleOf describes the compaction of messages, estimated at est tokens for
// the coming call, for the cost model of HookConfig.Prices: what stays at
// the front (the leading system messages), and what a call adds (the last
// step: the last assistant reply and what followed it, at least 1 % of the
// window), and the hidden reasoning a summarizer round bills as output, as
// learned from the rounds' usage.
func (h *Engine) CycleOf(ctx context.Context, messages []*schema.Message, est int) (cost.Cycle, error) {
	lead := 0
	for lead < len(messages) && messages[lead] != nil && messages[lead].Role == schema.System {
		lead++
	}
	prefix, err := h.counter.Count(ctx, messages[:lead], nil)
	if err != nil {
		return cost.Cycle{}, fmt.Errorf("compaction: counting the system prompt: %w", err)
	}
	last := max(message.LastAssistant(messages), lead)
	growth, err := h.counter.Count(ctx, messages[last:], nil)
	if err != nil {
		return cost.Cycle{}, fmt.Errorf("compaction: counting the last step: %w", err)
	}
	trigger, _ := h.Thresholds()
	return cost.Cycle{Estimate: est, Trigger: int(trigger), Prefix: prefix, Growth: max(growth, h.window/100, 1),
		Reasoning: h.Outputs.Reasoning()}, nil
}

// billKeep decides how deep the compaction of messages, estimated at est
// tokens for the coming call (overhead of them outside the messages), goes
// under the prices that choose the depth (HookConfig.Prices, or the assumed
// PricesOpenAI). It returns -1 to aim at the usual target, a call size of
// usual tokens, and keep, the verbatim floor, when the cost model finds a
// compaction that keeps the newest keep tokens verbatim and summarizes
// everything older cheaper per call.
func (h *Engine) billKeep(ctx context.Context, messages []*schema.Message, est, overhead, usual, keep int) (int, error) {
	if h.depth == nil {
		return -1, nil
	}
	c, err := h.CycleOf(ctx, messages, est)
	if err != nil {
		return -1, err
	}
	return c.Keep(*h.depth, overhead, usual, keep), nil
}

// VerbatimFloor is how many of the newest tokens a deep compaction keeps
// verbatim: cost.FloorPermille thousandths of the window, rounded up.
func (h *Engine) VerbatimFloor() int {
	return cost.Floor(h.window)
}

// weigh sets r.InvalidatedTokens for the compaction that turns before into
// after, and, under HookConfig.Prices, reports whether it must not be
// applied because re-sending what it keeps costs more than it saves before
// the next compaction (Report.Unprofitable). A call at or above the ceiling
// halfway from CompactAt to the window is compacted whatever it costs, and
// so is every call of a hook with PrepareAt: refusing a prepared result
// would make the call compact synchronously, paying the summarizer again
// and stalling the agent.
// left is the counter's size of after.
func (h *Engine) weigh(ctx context.Context, before, after []*schema.Message, left int, r *Report) (bool, error) {
	if h.Prices != nil && h.PrepareAt == 0 && float64(r.Estimated) < h.Ceiling() {
		c, err := h.CycleOf(ctx, before, r.Estimated)
		if err != nil {
			return false, err
		}
		c.Cold = r.ColdCache
		if kept, rates := left+r.Overhead, *h.Prices; !c.Pays(rates, kept) {
			r.Unprofitable = true
			h.log.DebugContext(ctx, "compaction not applied: re-sending what it keeps costs more than it saves before the next compaction",
				"step", r.BeforeStep(), "estimated_tokens", r.Estimated, "tokens_after", left, "resent_cost", c.Resent(rates, kept),
				"saving", c.Saving(rates, kept))
			return true, nil
		}
	}
	if r.ColdCache {
		// Nothing is cached any more: the next call is sent anew anyway.
		return false, nil
	}
	n, err := h.invalidated(ctx, before, after)
	if err != nil {
		return false, err
	}
	r.InvalidatedTokens = n
	return false, nil
}

// invalidated estimates the cached prefix a compaction turning before into
// after makes the provider drop: the part of the previous request (before,
// up to its last assistant reply) from the first message after changes.
func (h *Engine) invalidated(ctx context.Context, before, after []*schema.Message) (int, error) {
	first := 0
	for first < len(before) && first < len(after) && before[first] == after[first] {
		first++
	}
	last := message.LastAssistant(before)
	if last <= first {
		return 0, nil
	}
	n, err := h.counter.Count(ctx, before[first:last], nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting the invalidated prefix: %w", err)
	}
	return n, nil
}

// The cache's clock (Prices.CacheTTL). A provider keeps a prompt cache for
// minutes after its last use; a call made later than that, after a long
// tool run or a user's pause, is sent uncached whatever the hook does. A
// compaction applied then invalidates nothing: the hook counts no
// invalidated prefix for it (Report.InvalidatedTokens 0), the
// pay-for-itself rule finds nothing to re-send, and a compaction prepared
// in the background (HookConfig.PrepareAt) that is ready is applied at
// once, below CompactAt, rather than at the trigger, where applying it
// would make the provider drop a warm prefix. The conversation the trigger
// would have compacted is the same either way (the prepared result plus
// what was appended since), so applying early only makes the calls in
// between smaller.
//
// A synchronous hook (no PrepareAt) has nothing ready: compacting a cold
// call early costs a summarizer round that reads the conversation uncached
// (the cache-aligned request's prefix is cold too) and a compaction sooner,
// against a cold call sent smaller and a later compaction at the trigger
// that would have re-sent the verbatim floor. Near the trigger the second
// outweighs the first; further down it does not. cost.ColdLine places the
// line: see its comment for the measurements.

// cacheTTL is the cache lifetime the hook assumes: that of
// HookConfig.Prices, or of the assumed PricesOpenAI when they are nil.
func (h *Engine) cacheTTL() time.Duration {
	if h.Prices != nil {
		return h.Prices.CacheTTL
	}
	return h.assumedTTL
}

// cold reports whether the provider's cache of state's conversation has
// expired: the previous model call's reply arrived longer than the cache
// lifetime ago. An unknown time (zero) or no lifetime (0) is a warm cache.
func (h *Engine) cold(state *hooks.State) bool {
	return cost.Expired(h.cacheTTL(), state.LastModelCallAt, h.Now())
}

// ColdEarly reports whether a call below the trigger is compacted because
// the cache is cold: with a prepared compaction that is ready (prepared),
// or synchronously near the trigger (now).
func (h *Engine) ColdEarly(ctx context.Context, state *hooks.State, r *Report) (prepared, now bool) {
	if r.Triggered {
		return false, false
	}
	if h.coldReady(ctx, state, r) {
		return true, false
	}
	return false, h.coldNow(r)
}

// coldReady reports whether a call below the trigger applies a prepared
// compaction because the cache is cold (r.ColdCache): one was prepared for
// this conversation and has finished with a result to apply.
func (h *Engine) coldReady(ctx context.Context, state *hooks.State, r *Report) bool {
	if h.PrepareAt == 0 || !r.ColdCache {
		return false
	}
	// Jobs are aged on the wall clock, as prepare started them.
	j, expired := h.Jobs.Find(state.Messages, false, time.Now())
	h.dropAll(ctx, expired, "it expired")
	return j != nil && j.Finished() && !j.failed()
}

// coldNow reports whether a synchronous hook compacts a call below the
// trigger because the cache is cold (r.ColdCache) and the call is in the
// last third of the way from the target to the trigger. A hook with
// PrepareAt waits for its prepared compaction instead (coldReady): the
// rule would stall the agent.
func (h *Engine) coldNow(r *Report) bool {
	if h.PrepareAt > 0 || !r.ColdCache {
		return false
	}
	trigger, target := h.Thresholds()
	return float64(r.Estimated) >= cost.ColdLine(trigger, float64(target))
}
