package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

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
