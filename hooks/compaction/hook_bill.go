package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
)

// cycleOf describes the compaction of messages, estimated at est tokens for
// the coming call, for the cost model of HookConfig.Prices: what stays at
// the front (the leading system messages), and what a call adds (the last
// step: the last assistant reply and what followed it, at least 1 % of the
// window), and the hidden reasoning a summarizer round bills as output, as
// learned from the rounds' usage.
func (h *CompactionHook) cycleOf(ctx context.Context, messages []*schema.Message, est int) (cost.Cycle, error) {
	lead := 0
	for lead < len(messages) && messages[lead] != nil && messages[lead].Role == schema.System {
		lead++
	}
	prefix, err := h.counter.Count(ctx, messages[:lead], nil)
	if err != nil {
		return cost.Cycle{}, fmt.Errorf("compaction: counting the system prompt: %w", err)
	}
	last := max(LastAssistantIndex(messages), lead)
	growth, err := h.counter.Count(ctx, messages[last:], nil)
	if err != nil {
		return cost.Cycle{}, fmt.Errorf("compaction: counting the last step: %w", err)
	}
	trigger, _ := h.Thresholds()
	return cost.Cycle{Estimate: est, Trigger: int(trigger), Prefix: prefix, Growth: max(growth, h.window/100, 1),
		Reasoning: h.outputs.Reasoning()}, nil
}

// billKeep decides how deep the compaction of messages, estimated at est
// tokens for the coming call (overhead of them outside the messages), goes
// under the prices that choose the depth (HookConfig.Prices, or the assumed
// PricesOpenAI). It returns -1 to aim at the usual target, a call size of
// usual tokens, and keep, the verbatim floor, when the cost model finds a
// compaction that keeps the newest keep tokens verbatim and summarizes
// everything older cheaper per call.
func (h *CompactionHook) billKeep(ctx context.Context, messages []*schema.Message, est, overhead, usual, keep int) (int, error) {
	if h.depth == nil {
		return -1, nil
	}
	c, err := h.cycleOf(ctx, messages, est)
	if err != nil {
		return -1, err
	}
	return c.Keep(cost.Rates(*h.depth), overhead, usual, keep), nil
}

// verbatimFloor is how many of the newest tokens a deep compaction keeps
// verbatim: cost.FloorPermille thousandths of the window, rounded up.
func (h *CompactionHook) verbatimFloor() int {
	return cost.Floor(h.window)
}

// deepKey carries a deep compaction (Report.Deep) from a CompactionHook to
// its SummarizationCompactor, through the ctx of the Compact call (a
// Pipeline passes it on to its stages). A ToolResultPruningCompactor before
// a summarization stage reads it to leave the verbatim floor alone; other
// compactors ignore it and aim at the target.
type deepKey struct{}

// deep is what a deep compaction asks: keep the newest keep tokens
// verbatim and summarize the rest, unless that leaves the messages above
// limit tokens (a floor so large that the next call would compact again at
// once); the compaction then goes on towards the target as usual.
type deep struct{ keep, limit int }

func withDeep(ctx context.Context, d deep) context.Context {
	return context.WithValue(ctx, deepKey{}, d)
}

// deepOf returns the deep compaction ctx asks for, and whether it asks.
func deepOf(ctx context.Context) (deep, bool) {
	d, ok := ctx.Value(deepKey{}).(deep)
	return d, ok
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
func (h *CompactionHook) weigh(ctx context.Context, before, after []*schema.Message, left int, r *Report) (bool, error) {
	if h.prices != nil && h.prepareAt == 0 && float64(r.Estimated) < h.ceiling() {
		c, err := h.cycleOf(ctx, before, r.Estimated)
		if err != nil {
			return false, err
		}
		c.Cold = r.ColdCache
		if kept, rates := left+r.Overhead, cost.Rates(*h.prices); !c.Pays(rates, kept) {
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
func (h *CompactionHook) invalidated(ctx context.Context, before, after []*schema.Message) (int, error) {
	first := 0
	for first < len(before) && first < len(after) && before[first] == after[first] {
		first++
	}
	last := LastAssistantIndex(before)
	if last <= first {
		return 0, nil
	}
	n, err := h.counter.Count(ctx, before[first:last], nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting the invalidated prefix: %w", err)
	}
	return n, nil
}
