package compaction

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// prepareAfterCompaction starts preparing the next compaction in the call
// that has just compacted state's conversation (see prepare), while that
// call has not gone out yet. sent is the conversation as the hook received
// it, before the compaction: its requests are the last the agent actually
// sent. A cache-aligned summarizer request (SummarizationConfig.CacheAligned)
// must be one of them plus its instruction, byte for byte, or no cache
// holds its prefix; built from the compacted conversation, which no request
// has carried yet, it read no cached tokens. Given sent, a round whose span
// holds the new summary sends the transcript request instead
// (FallbackNotSent).
func (h *CompactionHook) prepareAfterCompaction(ctx context.Context, state *hooks.State, est int, sent []*schema.Message) bool {
	return h.prepare(withSentConversation(ctx, slices.Clone(sent)), state, est)
}
