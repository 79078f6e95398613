package request

import (
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/replytext"
)

// How a call sent its output cap (the values of compaction's OutputCap
// constants, which keep their literals so go doc shows them).
const (
	capMaxTokens           = "max_tokens"
	capMaxCompletionTokens = "max_completion_tokens"
	capNone                = "none"
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

// Cap is what a compactor learned about sending its output cap, shared by
// every run it serves. The zero value sends max_tokens and has no
// MaxCompletionTokensOption.
type Cap struct {
	// Completion is SummarizationConfig.MaxCompletionTokensOption; nil:
	// none.
	Completion func(int) model.Option

	mu sync.Mutex
	// rejected: the summarizer refused max_tokens.
	rejected bool
	// room is added to the cap for hidden reasoning; 0 until a reply came
	// back empty and cut at the cap, then at least minReasoningRoom.
	room int
}

// Options are the call options that send maxTokens, the room learned for
// reasoning added, how they send it (the value of an OutputCap constant)
// and that room.
func (o *Cap) Options(maxTokens int) ([]model.Option, string, int) {
	o.mu.Lock()
	rejected, room := o.rejected, o.room
	o.mu.Unlock()
	switch {
	case !rejected:
		return []model.Option{model.WithMaxTokens(maxTokens + room)}, capMaxTokens, room
	case o.Completion != nil:
		return []model.Option{o.Completion(maxTokens + room)}, capMaxCompletionTokens, room
	}
	return nil, capNone, 0
}

// LearnRejected notes that the summarizer refused max_tokens, and reports
// whether a call that sent them, as sentAs says, should be made again.
func (o *Cap) LearnRejected(sentAs string, err error) bool {
	if sentAs != capMaxTokens || !replytext.RefusesMaxTokens(err) {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected = true
	return true
}

// LearnReasoning notes the hidden reasoning a reply to a call that sent
// capSent as its cap (0: none) reported and, for a reply cut at the cap
// with no text, the room reasoning needs. It reports whether the call should
// be made again with that room: only the first time the compactor learns it,
// so a model that reasons without end costs one wasted call per compactor,
// not one per round. A reply cut with no cap sent hit the provider's own
// limit, which no room changes.
func (o *Cap) LearnReasoning(reply *schema.Message, capSent int) bool {
	spent := ReasoningTokens(reply)
	o.mu.Lock()
	defer o.mu.Unlock()
	if capSent == 0 || !replytext.CutBeforeText(reply) {
		if o.room > 0 {
			o.room = max(o.room, spent*reasoningRoomShare)
		}
		return false
	}
	first := o.room == 0
	o.room = max(o.room, minReasoningRoom, spent*reasoningRoomShare, capSent*reasoningRoomShare)
	return first
}

// ReasoningTokens is the hidden reasoning a reply reported: its usage's
// reasoning tokens, else, for a reply cut at its cap (finish reason
// "length") before any usable text or tool call, all its completion
// tokens, which can only have been reasoning.
func ReasoningTokens(reply *schema.Message) int {
	if reply == nil || reply.ResponseMeta == nil || reply.ResponseMeta.Usage == nil {
		return 0
	}
	u := reply.ResponseMeta.Usage
	if n := u.CompletionTokensDetails.ReasoningTokens; n > 0 {
		return n
	}
	if replytext.CutBeforeText(reply) {
		return u.CompletionTokens
	}
	return 0
}
