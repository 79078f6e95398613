package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"
)

// cycleOf describes the compaction of messages, estimated at est tokens for
// the coming call, for the cost model of HookConfig.Prices: what stays at
// the front (the leading system messages), and what a call adds (the last
// step: the last assistant reply and what followed it, at least 1 % of the
// window).
func (h *CompactionHook) cycleOf(ctx context.Context, messages []*schema.Message, est int) (cycle, error) {
	lead := 0
	for lead < len(messages) && messages[lead] != nil && messages[lead].Role == schema.System {
		lead++
	}
	prefix, err := h.counter.Count(ctx, messages[:lead], nil)
	if err != nil {
		return cycle{}, fmt.Errorf("compaction: counting the system prompt: %w", err)
	}
	last := max(LastAssistantIndex(messages), lead)
	growth, err := h.counter.Count(ctx, messages[last:], nil)
	if err != nil {
		return cycle{}, fmt.Errorf("compaction: counting the last step: %w", err)
	}
	trigger, _ := h.Thresholds()
	return cycle{estimate: est, trigger: int(trigger), prefix: prefix, growth: max(growth, h.window/100, 1)}, nil
}

// billTarget is the target of a compaction of messages under
// HookConfig.Prices: the usual target, or deeper when the cost model finds
// a deeper one cheaper per call (cycle.depth). overhead is Report.Overhead.
func (h *CompactionHook) billTarget(ctx context.Context, messages []*schema.Message, est, target, overhead int) (int, error) {
	c, err := h.cycleOf(ctx, messages, est)
	if err != nil {
		return 0, err
	}
	return max(c.depth(*h.prices, target+overhead, h.window)-overhead, 0), nil
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
		if kept := left + r.Overhead; !c.pays(*h.prices, kept) {
			r.Unprofitable = true
			h.log.InfoContext(ctx, "compaction not applied: re-sending what it keeps costs more than it saves before the next compaction",
				"step", r.Step, "estimated_tokens", r.Estimated, "tokens_after", left, "resent_cost", c.resent(*h.prices, kept),
				"saving", c.saving(*h.prices, kept))
			return true, nil
		}
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
