package compaction

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
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
