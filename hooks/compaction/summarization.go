package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/internal/redact"
)

// modelName names a chat model for reports.
func modelName(m model.BaseChatModel) string {
	if t, ok := components.GetType(m); ok && t != "" {
		return t
	}
	return fmt.Sprintf("%T", m)
}

// recordedAttempts reads how many calls a retrying summarizer recorded on its
// reply under Extra["summarizer_attempts"] (any slice), or 0.
func recordedAttempts(reply *schema.Message) int {
	v, ok := reply.Extra["summarizer_attempts"]
	if !ok || v == nil {
		return 0
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return 0
	}
	return rv.Len()
}

// Compact implements Compactor. It returns (nil, nil) when messages already
// fit targetTokens (the model is not called), when nothing can be summarized,
// or when the first round fails and RaiseOnFailure is false. A later failed
// round keeps the rounds before it. A negative target counts as 0; a nil
// counter means DefaultCounter().
//
// Errors from counting or planning are returned whatever RaiseOnFailure says,
// and so is a cancelled or expired ctx: its error wraps ctx.Err() and no
// partial result is returned.
func (c *SummarizationCompactor) Compact(ctx context.Context, messages []*schema.Message, targetTokens int, counter TokenCounter) ([]*schema.Message, error) {
	if counter == nil {
		counter = DefaultCounter()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compaction: summarization cancelled: %w", err)
	}
	current, err := counter.Count(ctx, messages, nil)
	if err != nil {
		return nil, withCtxErr(ctx, fmt.Errorf("compaction: counting the conversation: %w", err))
	}
	r := &progress{compacted: messages, current: current, target: max(targetTokens, 0), counter: counter}
	if c.aligned && !coldCacheOf(ctx) {
		r.al = request.Align(ctx, messages)
	}
	for r.current > r.target {
		plan, ok, err := c.nextPlan(ctx, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		next, after, err := c.round(ctx, r.al, r.compacted, plan, r.current, r.target, counter)
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("compaction: summarization cancelled: %w", errors.Join(cerr, err))
		}
		if err != nil {
			again, err := c.roundFailed(ctx, r, plan, err)
			if err != nil {
				return nil, err
			}
			if again {
				continue
			}
			break
		}
		c.log.DebugContext(ctx, "summarization round applied", "tier", plan.Tier, "messages", len(plan.Indices),
			"tokens_before", r.current, "tokens_after", after, "target_tokens", r.target)
		r.compacted, r.current, r.summarized = next, after, true
		if r.current <= r.target+r.target/planning.CloseEnough {
			// Within 1/planning.CloseEnough of the target: another summarizer call
			// would cost far more input than the few tokens it frees, and
			// the next compaction only comes a little earlier instead.
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compaction: summarization cancelled: %w", err)
	}
	c.sayRefusal(ctx, r)
	if !r.summarized {
		return nil, nil
	}
	return r.compacted, nil
}

// progress is one Compact call's state between its rounds.
type progress struct {
	compacted  []*schema.Message // the conversation after the rounds applied so far
	current    int               // its size by the counter
	target     int
	counter    TokenCounter
	summarized bool // a round was applied
	al         *request.Aligned
	refused    planning.Refusals // parts whose summary was not smaller
	// lastRefusal is the last ErrSummaryNotSmaller, said at Warn if no
	// round was applied.
	lastRefusal error
}

// nextPlan plans the next round; ok is false when there is nothing left
// worth a round.
func (c *SummarizationCompactor) nextPlan(ctx context.Context, r *progress) (plan Plan, ok bool, err error) {
	d, deep := planning.DeepOf(ctx)
	p, err := c.planner.Plan(ctx, r.compacted, r.target, planCounter(r.counter), r.refused, deep && r.summarized && r.current <= d.Limit)
	if err != nil {
		return Plan{}, false, withCtxErr(ctx, err)
	}
	plan = Plan(p)
	if plan.Empty() {
		return Plan{}, false, nil
	}
	// A deep round that left the conversation above its limit did not
	// do its job: the next round goes on however far it overshoots.
	if r.summarized && !(deep && r.current > d.Limit) {
		over, err := c.planner.Overshoots(ctx, r.compacted, p, r.current, r.target, r.counter)
		if err != nil {
			return Plan{}, false, withCtxErr(ctx, err)
		}
		if over {
			return Plan{}, false, nil
		}
	}
	return plan, true, nil
}

// roundFailed decides what a failed round means: an error for Compact to
// return (RaiseOnFailure, or a counting error), again when the part could
// not shrink and the rest of the conversation may, or neither when Compact
// keeps what the earlier rounds did.
func (c *SummarizationCompactor) roundFailed(ctx context.Context, r *progress, plan Plan, err error) (again bool, _ error) {
	var ce countError
	if c.raise || errors.As(err, &ce) {
		return false, err
	}
	if errors.Is(err, ErrSummaryNotSmaller) {
		// This part cannot shrink; the rest of the conversation may. Plan
		// around it for the rest of this compaction: routine while another
		// round is applied (the round's Err and the report say so), hence
		// Debug here; a compaction that ends with nothing applied says so
		// at Warn in sayRefusal.
		r.lastRefusal = err
		c.log.DebugContext(ctx, "summarization round refused: the summary was not smaller; trying the other parts",
			"tier", plan.Tier, "messages", len(plan.Indices), "error", err)
		if r.refused == nil {
			r.refused = planning.Refusals{}
		}
		r.refused.Add(r.compacted, plan.Indices)
		return true, nil
	}
	c.log.WarnContext(ctx, "summarization round failed; keeping the last successful result",
		"tier", plan.Tier, "messages", len(plan.Indices), "error", err)
	return false, nil
}

// sayRefusal logs a summary that outgrew what it would replace. It is worth
// a Warn (the reference logs it), except in a Pipeline whose earlier stage
// already made room: there the refusal is routine.
func (c *SummarizationCompactor) sayRefusal(ctx context.Context, r *progress) {
	if r.lastRefusal == nil {
		return
	}
	level := slog.LevelWarn
	if earlierStageChanged(ctx) {
		level = slog.LevelDebug
	}
	c.log.Log(ctx, level, "summarization kept a part verbatim: its summary was not smaller than what it would replace",
		"summarized", r.summarized, "error", r.lastRefusal)
}

// foldsSummary reports whether plan replaces one of this compactor's
// summaries. Its ledger values were kept in the conversation; a round that
// cannot be smaller with them is refused rather than applied without them.
func foldsSummary(messages []*schema.Message, plan Plan) bool {
	for _, i := range plan.Indices {
		if IsStrategy(messages[i], StrategySummarization) {
			return true
		}
	}
	return false
}

// deepLedgerShare is the identifier ledger's sized cap in a deep round, in
// quarters of the cap of a round to the same target. On the fidelity corpus
// through the hook (eval, TestFidelity), the cap as it is kept 92.8 % of
// the identifiers (450 dropped), 9/8 of it 96.9 %, 5/4 98.8 % and 3/2 all
// of them; with `go run ./cmd/benchcompare -bill` the OpenAI-like bill of
// einocompact-aligned / Eino went from 1.035, 1.039 and 1.006 to 1.060,
// 1.081 and 1.014 with 5/4, and to 1.093, 1.087 and 1.046 with 3/2.
const deepLedgerShare = 5

// round asks the chat model for one summary and swaps it in, reporting the
// round to the CompactionHook's Report (reportRound) and to OnRound.
func (c *SummarizationCompactor) round(ctx context.Context, al *request.Aligned, messages []*schema.Message, plan Plan, before, target int, counter TokenCounter) ([]*schema.Message, int, error) {
	rep := Round{Tier: plan.Tier, Indices: plan.Indices, TokensBefore: before, Model: c.model}
	next, after, err := c.summarize(ctx, al, messages, plan, before, target, counter, &rep)
	rep.TokensAfter, rep.Err = after, err
	reportRound(ctx, rep)
	if c.onRound != nil {
		c.onRound(ctx, rep)
	}
	return next, after, err
}

func (c *SummarizationCompactor) summarize(ctx context.Context, al *request.Aligned, messages []*schema.Message, plan Plan, before, target int, counter TokenCounter, rep *Round) ([]*schema.Message, int, error) {
	entries := c.ledger.Collect(messages, plan.Indices)
	in, err := planning.ReplacedTokens(ctx, messages, planning.Plan(plan), counter)
	if err != nil {
		return nil, 0, countError{err}
	}
	// The summarizer is told its budget and sent it, with some headroom,
	// as max output tokens: output is priced several times an input token,
	// and a reply that runs longer is cut by the provider where the model
	// honours max tokens. The budget is for the model's text alone: the
	// ledger block below is code's, at no output cost, and restores the
	// identifiers a short or cut reply lost.
	budget, maxTokens := c.outputBudget(in)
	rep.MaxOutputTokens = maxTokens
	text, err := c.write(ctx, al, messages, plan, budget, counter, rep)
	if err != nil {
		return nil, 0, err
	}
	capTokens := c.ledger.CapFor(target)
	if _, deep := planning.DeepOf(ctx); deep && !c.ledger.Capped() {
		// A deep round replaces everything older than the verbatim floor,
		// about half as much again as a round to the target: the sized cap
		// grows with it (deepLedgerShare).
		capTokens = capTokens * deepLedgerShare / 4
	}
	repaired, stats, fields, err := c.ledger.WithCap(capTokens).Repair(ctx, text, entries, planCounter(counter))
	if err != nil {
		return nil, 0, countError{err}
	}
	rep.Identifiers = IdentifierStats(stats)
	// The summary message is built once, for the new conversation and for
	// learn, which measures it.
	built := summarytext.New(repaired, len(plan.Indices), fields)
	next, after, err := applyBuilt(ctx, messages, plan, built, before, counter)
	if errors.Is(err, ErrSummaryNotSmaller) && stats.Appended > 0 && !foldsSummary(messages, plan) {
		// The verbatim block tipped the summary over; a smaller summary
		// without it still beats no summary.
		rep.Identifiers.Dropped += stats.Appended
		rep.Identifiers.Appended = 0
		built = summarytext.New(text, len(plan.Indices), fields)
		next, after, err = applyBuilt(ctx, messages, plan, built, before, counter)
	}
	if err != nil && !errors.Is(err, ErrSummaryNotSmaller) {
		return nil, 0, countError{err}
	}
	if lerr := c.planner.Learn(ctx, in, built, counter); lerr != nil {
		return nil, 0, countError{lerr}
	}
	return next, after, err
}

// write asks the summarizer for the round's summary text: with the
// cache-aligned request when al is set and it applies, else, or when its
// reply called a tool or held no text, with the transcript request. A nil
// reply is an empty one.
func (c *SummarizationCompactor) write(ctx context.Context, al *request.Aligned, messages []*schema.Message, plan Plan, budget int, counter TokenCounter, rep *Round) (string, error) {
	if al != nil {
		prompt, opts, n, fallback, err := c.requests().AlignedPrompt(ctx, al, messages, plan.Indices, budget, counter)
		if err != nil {
			return "", countError{err}
		}
		rep.AlignedFallback = fallback
		if fallback == "" {
			rep.Shape, rep.InputTokens = ShapeCacheAligned, n
			reply, err := c.ask(ctx, prompt, opts, rep)
			if err != nil {
				return "", err
			}
			text, terr := summarytext.Text(reply)
			switch {
			case reply != nil && len(reply.ToolCalls) > 0:
				rep.AlignedFallback = FallbackToolCall
			case terr != nil:
				rep.AlignedFallback = FallbackEmptyReply
			default:
				return text, nil
			}
			calls := 0
			if reply != nil {
				calls = len(reply.ToolCalls)
			}
			c.log.WarnContext(ctx, "the cache-aligned summarizer request got no summary; retrying with the transcript request",
				"reason", rep.AlignedFallback, "tool_calls", calls)
		}
	}
	transcript, truncated, transcriptTokens, err := c.requests().Fit(ctx, messages, plan.Indices, counter)
	if err != nil {
		return "", countError{err}
	}
	prompt := c.requests().Prompt(transcript, budget)
	// Round.InputTokens is the request as sent in both shapes: the
	// instruction too, and the tools, of which this request has none.
	inputTokens, err := counter.Count(ctx, prompt, nil)
	if err != nil {
		return "", countError{fmt.Errorf("compaction: measuring the summarizer request: %w", err)}
	}
	rep.Shape, rep.Truncated, rep.InputTokens, rep.TranscriptTokens = ShapeTranscript, truncated, inputTokens, transcriptTokens
	reply, err := c.ask(ctx, prompt, nil, rep)
	if err != nil {
		return "", err
	}
	return summarytext.Text(reply)
}

// ask makes the round's summarizer call with opts and the round's output
// cap, sent as the compactor has learned its summarizer takes it, and makes
// it again when the summarizer refuses max_tokens or, the first time, when
// its hidden reasoning used the whole cap up (see
// SummarizationConfig.MaxCompletionTokensOption). rep records how.
func (c *SummarizationCompactor) ask(ctx context.Context, prompt []*schema.Message, opts []model.Option, rep *Round) (*schema.Message, error) {
	// send returns the reply and the cap it sent (0: none).
	send := func() (*schema.Message, int, error) {
		capOpts, sentAs, room := c.outCap.Options(rep.MaxOutputTokens)
		rep.OutputCap, rep.ReasoningRoom = sentAs, room
		sent := 0
		if sentAs != OutputCapNone {
			sent = rep.MaxOutputTokens + room
		}
		reply, err := c.call(ctx, prompt, append(slices.Clip(opts), capOpts...), rep)
		return reply, sent, err
	}
	reply, sent, err := send()
	if err != nil && ctx.Err() == nil && c.outCap.LearnRejected(rep.OutputCap, err) {
		rep.CapRetries = append(rep.CapRetries, CapRetryRejected)
		c.log.WarnContext(ctx, "the summarizer refused max_tokens; this compactor no longer sends it",
			"completion_tokens_option", c.outCap.Completion != nil, "error", err)
		reply, sent, err = send()
	}
	if err != nil {
		return reply, err
	}
	if c.outCap.LearnReasoning(reply, sent) {
		rep.CapRetries = append(rep.CapRetries, CapRetryReasoning)
		c.log.WarnContext(ctx, "the summarizer's reply was cut at the cap before any text (hidden reasoning); this compactor adds room for reasoning from now on",
			"max_output_tokens", rep.MaxOutputTokens, "reasoning_tokens", request.ReasoningTokens(reply))
		reply, _, err = send()
		if err == nil {
			c.outCap.LearnReasoning(reply, 0)
		}
	}
	return reply, err
}

// call makes one summarizer call and adds its latency, usage, cached
// tokens and attempts to rep.
func (c *SummarizationCompactor) call(ctx context.Context, prompt []*schema.Message, opts []model.Option, rep *Round) (*schema.Message, error) {
	start := time.Now()
	reply, err := c.generate(ctx, prompt, opts...)
	rep.Latency += time.Since(start)
	attempts := 1
	if reply != nil {
		if reply.ResponseMeta != nil && reply.ResponseMeta.Usage != nil {
			u := *reply.ResponseMeta.Usage
			if rep.Usage != nil {
				u.PromptTokens += rep.Usage.PromptTokens
				u.CompletionTokens += rep.Usage.CompletionTokens
				u.TotalTokens += rep.Usage.TotalTokens
				u.PromptTokenDetails.CachedTokens += rep.Usage.PromptTokenDetails.CachedTokens
				u.CompletionTokensDetails.ReasoningTokens += rep.Usage.CompletionTokensDetails.ReasoningTokens
			}
			rep.Usage = &u
			rep.CachedTokens = u.PromptTokenDetails.CachedTokens
		}
		if n := recordedAttempts(reply); n > 0 {
			attempts = n
		}
	}
	rep.Attempts += attempts
	return reply, err
}

// countError marks a round that failed because the counter did. That is no
// fault of the summary, so RaiseOnFailure does not hide it: a round kept
// after a failed count would rest on numbers nobody measured.
type countError struct{ err error }

func (e countError) Error() string { return e.err.Error() }
func (e countError) Unwrap() error { return e.err }

// generate calls the chat model under a callback context of its own, so the
// summarizer's call is not reported as one of the agent's model calls, and
// turns a panic into an error.
func (c *SummarizationCompactor) generate(ctx context.Context, prompt []*schema.Message, opts ...model.Option) (reply *schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			reply, err = nil, fmt.Errorf("compaction: the summarizer chat model panicked: %v", p)
		}
	}()
	ctx = callbacks.InitCallbacks(ctx, &callbacks.RunInfo{
		Name:      "SummarizationCompactor",
		Type:      "SummarizationCompactor",
		Component: components.ComponentOfChatModel,
	})
	reply, err = c.chat.Generate(ctx, prompt, opts...)
	if err != nil {
		// Clients quote the URL they failed on; a key may ride in it.
		return reply, fmt.Errorf("compaction: the summarizer chat model failed: %w", redact.Error(err, redact.URLs))
	}
	return reply, nil
}

// applySummary swaps the summary in for plan and checks that the result is
// smaller than before tokens. It returns the new conversation and its size.
func applySummary(ctx context.Context, messages []*schema.Message, plan Plan, text string, fields map[string]any, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	return applyBuilt(ctx, messages, plan, summarytext.New(text, len(plan.Indices), fields), before, counter)
}

// applyBuilt is applySummary for a summary message already built by
// summarytext.New, so a caller that needs the message too (the round measures
// it to learn summary sizes) builds it once: it copies the whole summary.
func applyBuilt(ctx context.Context, messages []*schema.Message, plan Plan, summary *schema.Message, before int, counter TokenCounter) ([]*schema.Message, int, error) {
	next := planning.Splice(messages, plan.Indices, summary)
	after, err := counter.Count(ctx, next, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("compaction: counting the summarized conversation: %w", err)
	}
	if after >= before {
		return nil, after, fmt.Errorf("%w (%d tokens before and %d tokens after)", ErrSummaryNotSmaller, before, after)
	}
	return next, after, nil
}
