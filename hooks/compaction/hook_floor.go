package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"
)

// SizeFloor is an optional interface of a Compactor that cannot bring a
// conversation below some size whatever the conversation holds.
// NewCompactionHook checks it: a target (ContextWindow*CompactTo) at or below
// the floor means compaction never gets under the target, the next call
// triggers again, and every model call pays for a compaction.
type SizeFloor interface {
	// MinimumTokens is the smallest target, in tokens, the compactor can plan
	// for; 0 means no floor.
	MinimumTokens() int
}

var (
	_ SizeFloor = (*SummarizationCompactor)(nil)
	_ SizeFloor = (*Pipeline)(nil)
)

// MinimumTokens implements SizeFloor: the smallest summary the compactor
// plans for before it has seen a reply, since a round only fits a target
// that leaves room for one summary of that size: ApproximateSummaryTokens
// when set; without it, the default prior of the smallest input, the
// output budget's fixed part (64 tokens, less when
// SummarizationConfig.MaxOutputTokens is below 80) plus the identifier
// ledger's block at its smallest cap (256 tokens, or
// LedgerConfig.MaxTokens), 320 tokens with the defaults.
func (c *SummarizationCompactor) MinimumTokens() int {
	return c.prior(0, 0)
}

// MinimumTokens implements SizeFloor: the lowest floor among the stages, or
// 0 when any stage reports none, since that stage may reach the target alone.
func (p *Pipeline) MinimumTokens() int {
	floor := -1
	for _, s := range p.stages {
		f, ok := s.(SizeFloor)
		if !ok {
			return 0
		}
		if n := f.MinimumTokens(); floor < 0 || n < floor {
			floor = n
		}
	}
	return max(floor, 0)
}

// checkFloor rejects a hook configuration whose target cannot clear the
// compactor's floor. The target is the one the hook aims for (Thresholds),
// which lies below ContextWindow*CompactTo when CompactTo is close to
// CompactAt: a floor between the two would leave every call compacting.
func checkFloor(c Compactor, window int, at, to float64) error {
	f, ok := c.(SizeFloor)
	if !ok {
		return nil
	}
	raw := int(float64(window) * to)
	floor, target := f.MinimumTokens(), min(raw, bandBelow(float64(window)*at))
	if floor <= 0 || floor < target {
		return nil
	}
	lowered := ""
	if target < raw {
		lowered = fmt.Sprintf(", lowered to %d so that it stays below CompactAt (see CompactionHook.Thresholds),", target)
	}
	return fmt.Errorf("compaction: HookConfig.ContextWindow*CompactTo = %d*%v = %d tokens%s is not above the %d-token floor of %T "+
		"(for a SummarizationCompactor, SummarizationConfig.ApproximateSummaryTokens): every model call would compact again; "+
		"raise ContextWindow or CompactTo, or lower the floor", window, to, raw, lowered, floor, c)
}

// warnFixedPart logs a warning when the leading system messages and the tool
// schemas, which no compactor removes, already reach the target: compaction
// then runs on every call and never gets there.
func (h *CompactionHook) warnFixedPart(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo, target int) {
	end := 0
	for end < len(messages) && messages[end] != nil && messages[end].Role == schema.System && !HasMarkerKey(messages[end]) {
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
