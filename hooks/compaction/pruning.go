package compaction

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// StrategyToolResultPruning is the marker strategy of tool results replaced by
// ToolResultPruningCompactor. Its marker also holds "original_tokens", the
// counter's size of the result it replaced.
const StrategyToolResultPruning = message.StrategyToolResultPruning

// defaultPruningPlaceholder is the text a pruned tool result is replaced
// with. {tool_name} becomes the name of the tool that produced it. It stays
// unexported: a caller who wants other words writes their own Placeholder,
// and the field's godoc spells this one out.
const defaultPruningPlaceholder = "[This tool result was cleared to save context. Call `{tool_name}` again if you need it.]"

// defaultSkipMetaKeys are the Extra keys that exempt a tool result from
// pruning by default: a result already offloaded elsewhere is small and
// points to its content, so replacing it would lose the pointer.
var defaultSkipMetaKeys = []string{"tool_result_offloaded"}

// ToolResultPruningConfig configures a ToolResultPruningCompactor. A nil
// config, or nil fields, take the defaults.
type ToolResultPruningConfig struct {
	// MinKeepSteps is how many of the newest steps that have tool results
	// keep them untouched. Default 1; must be >= 1, since the newest results
	// are what the model is about to read.
	MinKeepSteps *int
	// MinTokens: results of at most this many tokens are never pruned, as
	// the placeholder would save little. Default 200; must be >= 0.
	MinTokens *int
	// Placeholder replaces a pruned result; every "{tool_name}" in it becomes
	// the tool's name (plain replacement, other braces are left alone).
	// "" means "[This tool result was cleared to save context. Call
	// `{tool_name}` again if you need it.]".
	Placeholder string
	// SkipMetaKeys: a result whose Extra holds any of these keys is never
	// pruned. Nil means "tool_result_offloaded" (a result offloaded
	// elsewhere is small and points to its content); an empty non-nil slice
	// exempts nothing.
	SkipMetaKeys []string
}

// ToolResultPruningCompactor replaces old, large tool results with a short
// placeholder naming the tool, oldest first, until the conversation fits. It
// keeps every message in place (so tool calls and results stay paired), keeps
// ToolCallID and ToolName, and copies Extra adding the
// StrategyToolResultPruning marker. Results of the newest MinKeepSteps steps,
// results already marked by any compactor and results carrying a skip key are
// left alone, and so are those among the newest messages a deep compaction
// (Report.Deep) keeps verbatim, when a CompactionHook asks for one and a
// summarization stage of a Pipeline follows this compactor.
//
// It calls no model and keeps no per-run state; it is safe for concurrent use.
type ToolResultPruningCompactor struct {
	minKeep     int
	minTokens   int
	placeholder string
	skipKeys    []string
}

var _ Compactor = (*ToolResultPruningCompactor)(nil)

// NewToolResultPruningCompactor validates cfg and returns the compactor. A nil
// cfg means all defaults. ctx is unused; it is there so every compactor is
// built alike.
func NewToolResultPruningCompactor(_ context.Context, cfg *ToolResultPruningConfig) (*ToolResultPruningCompactor, error) {
	c := &ToolResultPruningCompactor{minKeep: 1, minTokens: 200, placeholder: defaultPruningPlaceholder,
		skipKeys: slices.Clone(defaultSkipMetaKeys)}
	if cfg == nil {
		return c, nil
	}
	if cfg.MinKeepSteps != nil {
		if *cfg.MinKeepSteps < 1 {
			return nil, fmt.Errorf("compaction: ToolResultPruningConfig.MinKeepSteps must be at least 1, got %d", *cfg.MinKeepSteps)
		}
		c.minKeep = *cfg.MinKeepSteps
	}
	if cfg.MinTokens != nil {
		if *cfg.MinTokens < 0 {
			return nil, fmt.Errorf("compaction: ToolResultPruningConfig.MinTokens must be at least 0, got %d", *cfg.MinTokens)
		}
		c.minTokens = *cfg.MinTokens
	}
	if cfg.Placeholder != "" {
		c.placeholder = cfg.Placeholder
	}
	if cfg.SkipMetaKeys != nil {
		c.skipKeys = slices.Clone(cfg.SkipMetaKeys)
	}
	return c, nil
}

// Compact implements Compactor. It returns (nil, nil) when the conversation
// already fits or no result could be pruned with a saving. The size is
// tracked as a running estimate (the count minus each saving) rather than
// recounted, so the work is one count per message.
func (c *ToolResultPruningCompactor) Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compaction: tool result pruning: %w", err)
	}
	if counter == nil {
		counter = DefaultCounter()
	}
	current, err := counter.Count(ctx, messages, nil)
	if err != nil {
		return nil, fmt.Errorf("compaction: tool result pruning: counting: %w", err)
	}
	if current <= targetTokens {
		return nil, nil
	}
	protected, err := c.protected(ctx, messages, counter)
	if err != nil {
		return nil, err
	}
	return c.pruneOldest(ctx, messages, current, targetTokens, counter, protected)
}

// protected returns the indices of the results that are never pruned: those
// of the newest MinKeepSteps steps that have results, and those in a deep
// compaction's verbatim floor.
func (c *ToolResultPruningCompactor) protected(ctx context.Context, messages []*schema.Message, counter TokenCounter) (map[int]bool, error) {
	protected := map[int]bool{}
	withResults := 0
	steps := shape.Steps(messages, 0, len(messages), shape.Seq(len(messages)))
	for s := len(steps) - 1; s >= 0 && withResults < c.minKeep; s-- {
		if len(steps[s]) < 2 {
			continue // a step without results does not use up the quota
		}
		withResults++
		for _, i := range steps[s][1:] {
			protected[i] = true
		}
	}

	// A deep compaction (Report.Deep) keeps its verbatim floor: results
	// among the newest messages that hold it are not pruned either, when
	// this compactor runs in a Pipeline before a summarization stage
	// (einocompact-pruning kept 11.9 % of the window verbatim in the bill
	// simulation when it pruned there). On its own it aims at the target.
	if d, ok := planning.DeepOf(ctx); ok && summarizedAfter(ctx) {
		from, err := planning.NewestFrom(ctx, messages, planCounter(counter), d.Keep)
		if err != nil {
			return nil, fmt.Errorf("compaction: tool result pruning: %w", err)
		}
		for i := from; i < len(messages); i++ {
			protected[i] = true
		}
	}
	return protected, nil
}

// pruneOldest replaces results oldest first, skipping protected ones, until
// current (the conversation's size, less each saving) is within
// targetTokens. It returns nil when no result was replaced.
func (c *ToolResultPruningCompactor) pruneOldest(ctx context.Context, messages []*schema.Message, current, targetTokens int, counter TokenCounter, protected map[int]bool) ([]*schema.Message, error) {
	one := func(m *schema.Message) (int, error) {
		n, err := counter.Count(ctx, []*schema.Message{m}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: tool result pruning: counting: %w", err)
		}
		return n, nil
	}
	var out []*schema.Message
	callNames := map[string]string{} // tool names of the calls seen so far, by call id
	for i, m := range messages {
		if current <= targetTokens {
			break
		}
		if m != nil && m.Role == schema.Assistant {
			for _, tc := range m.ToolCalls {
				callNames[tc.ID] = tc.Function.Name
			}
		}
		if !IsToolResult(m) || protected[i] || HasMarkerKey(m) || c.skipped(m) {
			continue
		}
		pruned, saved, err := c.saving(m, callNames[m.ToolCallID], one)
		if err != nil {
			return nil, err
		}
		if saved > 0 {
			if out == nil {
				out = slices.Clone(messages)
			}
			out[i] = pruned
			current -= saved
		}
	}
	return out, nil
}

// saving returns the placeholder for m and the tokens it saves as one
// counts them; nothing saved when m is no larger than MinTokens.
func (c *ToolResultPruningCompactor) saving(m *schema.Message, callName string, one func(*schema.Message) (int, error)) (*schema.Message, int, error) {
	orig, err := one(m)
	if err != nil || orig <= c.minTokens {
		return nil, 0, err
	}
	pruned := c.prune(m, callName, orig)
	after, err := one(pruned)
	if err != nil {
		return nil, 0, err
	}
	return pruned, orig - after, nil
}

func (c *ToolResultPruningCompactor) skipped(m *schema.Message) bool {
	for _, k := range c.skipKeys {
		if _, ok := m.Extra[k]; ok {
			return true
		}
	}
	return false
}

// prune builds the placeholder message for m. Name, ToolCallID and ToolName
// are kept so the result still answers its call. The placeholder names the
// tool as the result states it, else as its call does, so the model always
// knows what to call again.
func (c *ToolResultPruningCompactor) prune(m *schema.Message, callName string, orig int) *schema.Message {
	name := m.ToolName
	if name == "" {
		name = callName
	}
	if name == "" {
		name = "the tool"
	}
	out := schema.ToolMessage(strings.ReplaceAll(c.placeholder, "{tool_name}", name), m.ToolCallID, schema.WithToolName(m.ToolName))
	out.Name = m.Name
	out.Extra = make(map[string]any, len(m.Extra)+1)
	maps.Copy(out.Extra, m.Extra)
	out.Extra[MetaKey] = NewMarker(StrategyToolResultPruning, 0, map[string]any{"original_tokens": orig})
	return out
}

var _ Identifier = (*ToolResultPruningCompactor)(nil)

// CompactionIdentity implements Identifier.
func (c *ToolResultPruningCompactor) CompactionIdentity() string {
	return fmt.Sprintf("tool_result_pruning/1 min_keep=%d min_tokens=%d placeholder=%s skip=%s",
		c.minKeep, c.minTokens, textID(c.placeholder), textID(strings.Join(c.skipKeys, "\x00")))
}
