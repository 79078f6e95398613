package einoint

import (
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/marker"
)

// MetaKey is compaction.MetaKey, the schema.Message.Extra key that marks a
// message written by a compactor.
//
// Deprecated: use compaction.MetaKey, the one declaration of the key; this
// alias is removed in the next release.
const MetaKey = marker.Key

// UsageTokens is the size of the model call that produced msg, as its
// provider reported it: PromptTokens+CompletionTokens, else TotalTokens, and 0
// when neither is above zero. Zero means unknown, not empty: the eino-ext
// clients fill zeros when a server omits usage.
func UsageTokens(msg *schema.Message) int {
	if msg == nil || msg.ResponseMeta == nil || msg.ResponseMeta.Usage == nil {
		return 0
	}
	u := msg.ResponseMeta.Usage
	if n := u.PromptTokens + u.CompletionTokens; n > 0 {
		return n
	}
	return max(u.TotalTokens, 0)
}

// ContextTokens derives hooks.State.ContextTokens for a conversation an
// integration only sees as messages (the ADK state, the react rewriter's
// input): the UsageTokens of the last assistant message, or 0 when there is
// none, it reports no usage, or a compaction-marked message follows it.
//
// The last case is the trap: a compaction that ran after a reply rewrote the
// prompt that reply's usage describes, so that number is stale. A marker after
// the reply is the only trace such a compaction leaves in the messages. (A
// compaction that kept the reply and placed its summary before it cannot be
// seen this way; integrations that run hooks before every model call never
// meet it, because a fresh reply always arrives between two of their
// compactions. Where per-run storage exists, they also remember it; see
// Middleware.)
func ContextTokens(messages []*schema.Message) int {
	last := -1
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i] != nil && messages[i].Role == schema.Assistant {
			last = i
			break
		}
	}
	if last < 0 {
		return 0
	}
	// Only the presence of the marker's key matters here: any compaction,
	// whatever its strategy, makes older usage stale.
	for _, m := range messages[last+1:] {
		if m != nil && marker.Has(m.Extra) {
			return 0
		}
	}
	return UsageTokens(messages[last])
}
