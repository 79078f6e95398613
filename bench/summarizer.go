package bench

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// SummaryCall is what one call to a Summarizer read, wrote and would have
// taken.
type SummaryCall struct {
	InputTokens  int           // the prompt, by the Summarizer's counter
	OutputTokens int           // the summary written
	Latency      time.Duration // simulated: prefill plus decode time
	Elapsed      time.Duration // real time spent inside Generate
	// Origin is the simulated model call whose compaction made this call:
	// the step Simulate put in the ctx, -1 outside a simulation. A call
	// of a compaction prepared in the background has the step that
	// started it.
	Origin int
	// Background says the call belongs to a compaction prepared in the
	// background, whose calls a simulation accounts apart from those of
	// the synchronous compaction the same step may make.
	Background bool
	// Messages and Tools are the request as the summarizer received it:
	// its messages, and the tool schemas passed as a model option (none
	// unless the compactor forwards the agent's).
	Messages []*schema.Message
	Tools    []*schema.ToolInfo
}

// originKey carries the simulated step in the ctx the strategies get; the
// hook passes ctx values on to background compactions.
type originKey struct{}

func withOrigin(ctx context.Context, step int) context.Context {
	return context.WithValue(ctx, originKey{}, step)
}

// backgroundKey marks the ctx of a compaction prepared in the background.
type backgroundKey struct{}

func withBackground(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

func originOf(ctx context.Context) int {
	if step, ok := ctx.Value(originKey{}).(int); ok {
		return step
	}
	return -1
}

// Summarizer is a deterministic chat model that writes summaries whose
// length, and whose simulated latency, grow with the length of its input,
// the way a real model's do. It never sleeps: the latency is computed and
// reported through OnCall so that a simulation can account for it without
// waiting.
//
// When its input asks for an <all_user_messages> block (Eino's middleware
// prompt does) the summary contains an empty one, as a compliant model would
// write it, so that the middleware's post-processing runs as in production.
type Summarizer struct {
	// Counter measures the input and sizes the output. Default
	// compaction.DefaultCounter().
	Counter compaction.TokenCounter
	// OnCall, when set, receives every call. It must be safe for concurrent
	// use if the Summarizer is.
	OnCall func(SummaryCall)
	// ZeroLatency reports a latency of 0 (for micro-benchmarks).
	ZeroLatency bool
	// Model, when set, writes the summary: its reply's text is the
	// Summarizer's (with the <all_user_messages> block added when the input
	// asks for one and the text has none), and its size by Counter is the
	// output the call reports and is timed by. Nil: the cost model writes a
	// summary of OutputTokens.
	Model model.BaseChatModel
}

var _ model.BaseChatModel = (*Summarizer)(nil)

// The cost model: a summary is 64 tokens plus one eighth of the input (of
// the messages a cache-aligned request names, when it names them), at most
// 4,096 and at most the call's max output tokens (model.WithMaxTokens);
// prefill runs at 10,000 tokens/s and decoding at 60 tokens/s after 400 ms
// to first token. These are round numbers for a hosted
// mid-size model; only their growth with the input matters for comparing.
const (
	summaryBaseTokens = 64
	summaryRatio      = 8
	summaryMaxTokens  = 4096
	firstTokenDelay   = 400 * time.Millisecond
	prefillPerToken   = 100 * time.Microsecond
	decodePerToken    = time.Second / 60
)

// OutputTokens is how many tokens the Summarizer writes for input tokens.
func OutputTokens(input int) int {
	return min(summaryBaseTokens+input/summaryRatio, summaryMaxTokens)
}

// Latency is the simulated time of a call reading input and writing output
// tokens.
func Latency(input, output int) time.Duration {
	return firstTokenDelay + time.Duration(input)*prefillPerToken + time.Duration(output)*decodePerToken
}

// Generate implements model.BaseChatModel.
func (s *Summarizer) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counter := s.Counter
	if counter == nil {
		counter = compaction.DefaultCounter()
	}
	tools := model.GetCommonOptions(nil, opts...).Tools
	in, err := counter.Count(ctx, input, tools)
	if err != nil {
		return nil, err
	}
	out := OutputTokens(in)
	if span, ok := namedSpan(input); ok {
		n, err := counter.Count(ctx, span, nil)
		if err != nil {
			return nil, err
		}
		out = OutputTokens(n)
	}
	if o := model.GetCommonOptions(nil, opts...); o.MaxTokens != nil && *o.MaxTokens > 0 {
		out = min(out, *o.MaxTokens)
	}
	text := ""
	if s.Model != nil {
		if text, out, err = s.modelText(ctx, input, opts); err != nil {
			return nil, err
		}
	}
	background, _ := ctx.Value(backgroundKey{}).(bool)
	call := SummaryCall{InputTokens: in, OutputTokens: out, Origin: originOf(ctx), Background: background,
		Messages: slices.Clone(input), Tools: tools}
	if !s.ZeroLatency {
		call.Latency = Latency(in, out)
	}
	if s.Model == nil {
		text = summaryText(out, wantsUserBlock(input))
	}
	reply := schema.AssistantMessage(text, nil)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}}
	if s.OnCall != nil {
		call.Elapsed = time.Since(start)
		s.OnCall(call)
	}
	return reply, nil
}

// modelText is Model's summary of input and its size in output tokens.
func (s *Summarizer) modelText(ctx context.Context, input []*schema.Message, opts []model.Option) (string, int, error) {
	r, err := s.Model.Generate(ctx, input, opts...)
	if err != nil {
		return "", 0, err
	}
	if r == nil {
		return "", 0, errors.New("bench: the summarizer's model answered nothing")
	}
	text := r.Content
	if wantsUserBlock(input) && !strings.Contains(text, "<all_user_messages>") {
		text += "\n<all_user_messages>\n</all_user_messages>"
	}
	return text, ReplyTokens(schema.AssistantMessage(text, nil)), nil
}

// Stream implements model.BaseChatModel; summarizers are called with
// Generate, so streaming is not offered.
func (s *Summarizer) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("bench: Summarizer does not stream")
}

// spanPattern finds the positions a cache-aligned request's closing
// instruction names ("Messages 2-10, 12 and 14-20 of this conversation
// (counting its first message as 1)"; compaction.AlignedSpan reads it).
var spanPattern = regexp.MustCompile(`Messages ([0-9, -]+(?: and [0-9-]+)?) of this conversation \(counting its first message as 1\)`)

// namedSpan returns the messages a cache-aligned request asks to
// summarize: a model given the whole conversation and asked for a summary
// of part of it writes about that part, so the summary is sized by it, as
// a transcript request's summary is by the transcript.
func namedSpan(input []*schema.Message) ([]*schema.Message, bool) {
	if len(input) < 2 || input[len(input)-1].Role != schema.User {
		return nil, false
	}
	m := spanPattern.FindStringSubmatch(input[len(input)-1].Content)
	if m == nil {
		return nil, false
	}
	var span []*schema.Message
	for _, part := range strings.Split(strings.ReplaceAll(m[1], " and ", ","), ",") {
		first, last, found := strings.Cut(strings.TrimSpace(part), "-")
		if !found {
			last = first
		}
		a, err1 := strconv.Atoi(first)
		b, err2 := strconv.Atoi(last)
		if err1 != nil || err2 != nil || a < 1 || b < a || b > len(input)-1 {
			return nil, false
		}
		span = append(span, input[a-1:b]...)
	}
	return span, true
}

func wantsUserBlock(input []*schema.Message) bool {
	for _, m := range input {
		if m.Role != schema.Assistant && strings.Contains(m.Content, "<all_user_messages>") {
			return true
		}
	}
	return false
}

// summaryText writes about tokens*4 ASCII characters of bullet points (the
// default counter's 4 code points per token).
func summaryText(tokens int, userBlock bool) string {
	var b strings.Builder
	want := tokens * 4
	b.Grow(want + 64)
	for i := 0; b.Len() < want; i++ {
		b.WriteString("- fact ")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(": handler retries after timeout; see internal/store/file.go\n")
	}
	s := b.String()[:want]
	if userBlock {
		s += "\n<all_user_messages>\n</all_user_messages>"
	}
	return s
}
