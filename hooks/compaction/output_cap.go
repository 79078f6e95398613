package compaction

import (
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/replytext"
)

// How a round's last summarizer call sent its output cap (Round.OutputCap).
const (
	// OutputCapMaxTokens: as max_tokens (model.WithMaxTokens), the default.
	OutputCapMaxTokens = "max_tokens"
	// OutputCapMaxCompletionTokens: through
	// SummarizationConfig.MaxCompletionTokensOption, once the summarizer had
	// refused max_tokens.
	OutputCapMaxCompletionTokens = "max_completion_tokens"
	// OutputCapNone: no cap, since the summarizer refused max_tokens and no
	// MaxCompletionTokensOption is set. The budget is still told in words.
	OutputCapNone = "none"
)

// Why a round made a summarizer call again with another output cap
// (Round.CapRetries). Each is learned by the compactor: its later calls
// send what worked at once.
const (
	// CapRetryRejected: the summarizer refused max_tokens (OpenAI's
	// reasoning models answer HTTP 400 unsupported_parameter, "Use
	// 'max_completion_tokens' instead"); the call was made again with
	// MaxCompletionTokensOption, or with no cap.
	CapRetryRejected = "max_tokens_rejected"
	// CapRetryReasoning: the reply was empty and cut at the cap (finish
	// reason "length"), as a reasoning model's is when its hidden reasoning
	// used the cap up; the call was made again with room for the reasoning
	// (Round.ReasoningRoom).
	CapRetryReasoning = "reasoning_room"
)

// minReasoningRoom is the least room for hidden reasoning a compactor adds to
// its cap once a reply came back empty and cut: reasoning models spend from
// a few hundred to a few thousand tokens before a summary, and a cap only
// bounds the bill, so a generous room costs nothing a model does not spend.
// reasoningRoomShare: the room is at least this many times the reasoning a
// reply reported, so a harder span than the last one still fits.
const (
	minReasoningRoom   = 4096
	reasoningRoomShare = 2
)

// outputCap is what a compactor learned about sending its output cap, shared
// by every run it serves.
type outputCap struct {
	completion func(int) model.Option // MaxCompletionTokensOption; nil: none

	mu sync.Mutex
	// rejected: the summarizer refused max_tokens.
	rejected bool
	// room is added to the cap for hidden reasoning; 0 until a reply came
	// back empty and cut at the cap, then at least minReasoningRoom.
	room int
}

// options are the call options that send maxTokens, the room learned for
// reasoning added, and how they send it (an OutputCap constant).
func (o *outputCap) options(maxTokens int) ([]model.Option, string, int) {
	o.mu.Lock()
	rejected, room := o.rejected, o.room
	o.mu.Unlock()
	switch {
	case !rejected:
		return []model.Option{model.WithMaxTokens(maxTokens + room)}, OutputCapMaxTokens, room
	case o.completion != nil:
		return []model.Option{o.completion(maxTokens + room)}, OutputCapMaxCompletionTokens, room
	}
	return nil, OutputCapNone, 0
}

// learnRejected notes that the summarizer refused max_tokens, and reports
// whether a call that sent them, as sentAs says, should be made again.
func (o *outputCap) learnRejected(sentAs string, err error) bool {
	if sentAs != OutputCapMaxTokens || !refusesMaxTokens(err) {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected = true
	return true
}

// learnReasoning notes the hidden reasoning a reply to a call that sent
// capSent as its cap (0: none) reported and, for a reply cut at the cap
// with no text, the room reasoning needs. It reports whether the call should
// be made again with that room: only the first time the compactor learns it,
// so a model that reasons without end costs one wasted call per compactor,
// not one per round. A reply cut with no cap sent hit the provider's own
// limit, which no room changes.
func (o *outputCap) learnReasoning(reply *schema.Message, capSent int) bool {
	spent := reasoningTokens(reply)
	o.mu.Lock()
	defer o.mu.Unlock()
	if capSent == 0 || !cutEmpty(reply) {
		if o.room > 0 {
			o.room = max(o.room, spent*reasoningRoomShare)
		}
		return false
	}
	first := o.room == 0
	o.room = max(o.room, minReasoningRoom, spent*reasoningRoomShare, capSent*reasoningRoomShare)
	return first
}

// cutEmpty reports whether reply was cut at its cap (finish reason
// "length") before it had any usable text or tool call.
func cutEmpty(reply *schema.Message) bool { return replytext.CutBeforeText(reply) }

// refusesMaxTokens reports whether err is a provider's refusal of max_tokens.
func refusesMaxTokens(err error) bool { return replytext.RefusesMaxTokens(err) }

// reasoningTokens is the hidden reasoning a reply reported: its usage's
// reasoning tokens, else, for a reply cut with no text, all its completion
// tokens, which can only have been reasoning.
func reasoningTokens(reply *schema.Message) int {
	if reply == nil || reply.ResponseMeta == nil || reply.ResponseMeta.Usage == nil {
		return 0
	}
	u := reply.ResponseMeta.Usage
	if n := u.CompletionTokensDetails.ReasoningTokens; n > 0 {
		return n
	}
	if cutEmpty(reply) {
		return u.CompletionTokens
	}
	return 0
}
