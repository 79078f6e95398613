package compaction

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
	"github.com/einocompact/einocompact/internal/replytext"
)

// Request shapes of a summarizer call (Round.Shape).
const (
	// ShapeTranscript is the compactor's own request: its instruction as the
	// system prompt and the replaced messages rendered as one transcript.
	ShapeTranscript = "transcript"
	// ShapeCacheAligned is the agent's last request as it was sent (system
	// prompt, tool schemas, messages, in order) followed by one user
	// instruction naming the span to summarize (SummarizationConfig.CacheAligned).
	// Its prefix is byte for byte what the provider cached for the agent.
	ShapeCacheAligned = "cache_aligned"
)

// Why a CacheAligned compactor sent the transcript request instead
// (Round.AlignedFallback).
const (
	// FallbackToolCall: the cache-aligned reply called a tool; the round
	// was retried once with the transcript request.
	FallbackToolCall = "tool_call"
	// FallbackEmptyReply: the cache-aligned reply had no usable text; the
	// round was retried once with the transcript request.
	FallbackEmptyReply = "empty_reply"
	// FallbackOverBudget: the cache-aligned request was larger than
	// SummarizationConfig.MaxSummarizerInputTokens.
	FallbackOverBudget = "over_budget"
	// FallbackNotSent: the span holds a message the agent never sent, a
	// summary written earlier in the same compaction, so no request of the
	// agent's holds it.
	FallbackNotSent = "not_sent"
)

// WithRequestTools returns a ctx carrying the tool schemas the agent sends
// with its model calls. A CompactionHook puts State.Tools into the ctx it
// hands its Compactor this way, so the Compactor interface stays as it is: a
// compactor that wants the agent's tools (a SummarizationCompactor with
// CacheAligned) reads them with RequestTools, any other ignores them. Whoever
// calls a compactor directly may do the same.
func WithRequestTools(ctx context.Context, tools []*schema.ToolInfo) context.Context {
	return request.WithTools(ctx, tools)
}

// RequestTools returns the tool schemas WithRequestTools put into ctx, and
// whether there were any set (an agent without tools sets an empty list).
func RequestTools(ctx context.Context) ([]*schema.ToolInfo, bool) { return request.Tools(ctx) }

// alignedRequest builds the cache-aligned request for the round replacing
// messages[indices]: the agent's last request as sent (or the whole
// conversation Compact was given, when the span reaches past it) and the
// instruction naming the span. It returns the prompt, the call options
// carrying the agent's tools, the counter's size of prompt and tools, and,
// when the round must use the transcript request instead, why.
func (c *SummarizationCompactor) alignedRequest(ctx context.Context, al *request.Aligned, messages []*schema.Message, indices []int, budget int, counter TokenCounter) ([]*schema.Message, []model.Option, int, string, error) {
	positions, ok := al.Positions(messages, indices)
	if !ok {
		return nil, nil, 0, FallbackNotSent, nil
	}
	base := al.Sent[:al.Request]
	if positions[len(positions)-1] >= al.Request {
		base = al.Sent
	}
	prompt := make([]*schema.Message, 0, len(base)+1)
	prompt = append(prompt, base...)
	prompt = append(prompt, schema.UserMessage(c.alignedInstruction(al.Sent, positions, budget)))
	n, err := counter.Count(ctx, prompt, al.Tools)
	if err != nil {
		return nil, nil, 0, "", fmt.Errorf("compaction: measuring the cache-aligned summarizer request: %w", err)
	}
	if c.maxInput > 0 && n > c.maxInput {
		return nil, nil, n, FallbackOverBudget, nil
	}
	var opts []model.Option
	if len(al.Tools) > 0 {
		opts = append(opts, model.WithTools(al.Tools))
	}
	return prompt, opts, n, "", nil
}

// alignedInstruction is the user message closing a cache-aligned request
// (request.Instruction): the span by position and by its first and last
// message, then the default sections, rules and length for budget tokens,
// or the custom SummaryInstruction with BudgetWordsPlaceholder filled in.
func (c *SummarizationCompactor) alignedInstruction(sent []*schema.Message, positions []int, budget int) string {
	custom := ""
	if c.customInstruction() {
		custom = c.instruction
	}
	return request.Instruction(sent, positions, custom, budget)
}

// AlignedSpan reads a cache-aligned summarizer request (see
// SummarizationConfig.CacheAligned): when prompt's last message is the
// instruction such a request ends with, it returns the 0-based positions in
// prompt of the messages the instruction asks to summarize, and true. A
// summarizer that summarizes a transcript rather than following the
// instruction (summarizer/extractive) uses it to find what to summarize,
// for example with Transcript(prompt[:len(prompt)-1], span). Any other
// prompt, or positions past the request, give false.
func AlignedSpan(prompt []*schema.Message) ([]int, bool) { return request.Span(prompt) }

// A synchronous compaction of a call whose cache has gone cold
// (Report.ColdCache) gains nothing from the cache-aligned request: the
// agent's prefix it would send is no longer cached, so the summarizer
// would read all of it, tool schemas and whole tool results, uncached; and
// the compacted conversation the agent sends next shares no prefix with it
// beyond the system prompt. The transcript request sends less (no tool
// schemas, long texts cut to their head and tail, MaxTextTokens), so the
// hook asks for it then. A compaction prepared in the background is not
// concerned: its request follows the agent's call, which has just written
// the cache again.

// coldCacheOf reports whether ctx is the compaction of a call whose cache is
// cold (cost.WithCold, set by the hook).
func coldCacheOf(ctx context.Context) bool { return cost.Cold(ctx) }

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

// outputBudget is the round's output budget for input tokens replaced: the
// tokens the summarizer is asked to write (cost.SummaryBudget), and the max output tokens sent
// (that plus the headroom, at most SummarizationConfig.MaxRoundOutputTokens;
// when that bound is lower, the budget told shrinks with it).
func (c *SummarizationCompactor) outputBudget(input int) (budget, maxTokens int) {
	return request.Budget(cost.SummaryBudget(input), c.maxOutput)
}

// BudgetWordsPlaceholder, written in a custom
// SummarizationConfig.SummaryInstruction, is replaced in each round's request
// by the round's output budget in words (a number, e.g. "120"), the number
// the default instruction's closing sentence names ("Keep the summary under
// about 120 words."). A custom instruction gets no such sentence: it is sent
// as written, with the placeholder, if any, filled in.
const BudgetWordsPlaceholder = request.Placeholder

// customInstruction reports whether the compactor's instruction is a custom
// one, which gets no budget sentence.
func (c *SummarizationCompactor) customInstruction() bool {
	return c.instruction != DefaultSummaryInstruction
}

// instructionFor is a custom instruction with BudgetWordsPlaceholder filled
// in for budget tokens.
func (c *SummarizationCompactor) instructionFor(budget int) string {
	return request.Fill(c.instruction, budget)
}

// transcriptRequest is the transcript request for a wrapped transcript and
// the round's budget. With the default instruction the summary's length
// (request.Sentence) follows the transcript's closing tag, in the user
// message, outside the data block. A custom instruction is the system
// prompt as written, BudgetWordsPlaceholder filled in, and the wrapped
// transcript alone the user message.
func (c *SummarizationCompactor) transcriptRequest(wrapped string, budget int) []*schema.Message {
	if c.customInstruction() {
		return transcript.PromptWrapped(c.instructionFor(budget), wrapped)
	}
	return transcript.PromptWrapped(c.instruction, wrapped+"\n\n"+request.Sentence(budget))
}

// minCutRunes is the shortest a cut text may become: enough for a head, a
// tail and the marker between them.
const minCutRunes = 96

// fitTranscript returns the transcript to show the summarizer for indices,
// wrapped in its tags (transcript.Wrapped), its size without them, and how
// many messages had a text cut. Every text longer than MaxTextTokens is cut
// to it, head and tail with a marker between them, unless the marker would
// make it no shorter. Under MaxRoundInputTokens it then cuts the longest texts the
// transcript shows, whatever field of a message holds them (content, parts,
// tool-call arguments, names, ids, attachment placeholders), keeping head
// and tail and marking the cut, halving the allowance until the transcript
// fits or nothing more can be cut. The cuts happen as the transcript is
// rendered; the conversation is untouched.
func (c *SummarizationCompactor) fitTranscript(ctx context.Context, messages []*schema.Message, indices []int, counter TokenCounter) (string, int, int, error) {
	var text string
	var cut int
	// Without a cap nothing is cut and the longest text need not be
	// measured: no cutter, so texts are indented as they are written.
	var cutter *render.Cutter
	if c.maxInput > 0 || c.maxText > 0 {
		cutter = &render.Cutter{Limit: c.maxText, Track: c.maxInput > 0}
	}
	view := transcript.View{Cut: cutter, DropLedger: !c.ledger.Off(), Request: transcript.Spanned(messages, indices)}
	size := func() (int, error) {
		text, cut = transcript.Wrapped(messages, indices, view)
		n, err := counter.Count(ctx, []*schema.Message{schema.UserMessage(transcript.Body(text))}, nil)
		if err != nil {
			return 0, fmt.Errorf("compaction: measuring the summarizer's transcript: %w", err)
		}
		return n, nil
	}
	n, err := size()
	if err != nil || c.maxInput == 0 || n <= c.maxInput {
		return text, cut, n, err
	}
	longest := cutter.Longest
	if c.maxText > 0 {
		longest = min(longest, c.maxText)
	}
	for cutter.Limit = longest / 2; cutter.Limit >= minCutRunes; cutter.Limit /= 2 {
		if n, err = size(); err != nil {
			return "", 0, 0, err
		}
		if n <= c.maxInput || cutter.Limit/2 < minCutRunes {
			return text, cut, n, nil
		}
	}
	return text, cut, n, nil
}
