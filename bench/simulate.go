package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	einosum "github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// The strategies a simulation compares.
const (
	// StrategyEinocompact is a CompactionHook with a SummarizationCompactor
	// in their default settings.
	StrategyEinocompact = "einocompact"
	// StrategyEino is Eino's adk/middlewares/summarization middleware with
	// Trigger.ContextTokens at the same size as the hook's trigger.
	StrategyEino = "eino"
)

// SimConfig describes one simulated run.
type SimConfig struct {
	Shape  Shape
	Steps  int    // model calls; must be >= 1
	Window int    // context window in tokens; must be >= 1000
	Seed   uint64 // picks the trajectory
	// CompactAt and CompactTo are the hook's fractions of Window; zero
	// values take the hook's defaults, 0.7 and 0.4. Eino's middleware is
	// triggered at Window*CompactAt too; it has no target.
	CompactAt, CompactTo float64
}

// StepRecord is one model call as a strategy made it.
type StepRecord struct {
	Step   int // 0-based
	Before int // the prompt in tokens had nothing been compacted at this step
	Prompt int // the prompt actually sent: messages and tool schemas, by the default counter
}

// Compaction is one step at which a strategy replaced part of the conversation.
type Compaction struct {
	Step         int
	Calls        []SummaryCall // summarizer calls, in order
	InputTokens  int           // summed over Calls
	OutputTokens int           // summed over Calls
	// Stall is the simulated time the agent waited for the summarizer:
	// the calls' latencies added up, since they run one after another.
	Stall time.Duration
	// Retained is the size in tokens of the messages kept verbatim: those of
	// the conversation before the compaction that are still in it, the
	// leading system prompt excepted.
	Retained      int
	Before, After int // prompt tokens before and after
	// Tiers are the planner tiers of the rounds, in order (einocompact only).
	Tiers []string
}

// SimResult is what one strategy did over one trajectory.
type SimResult struct {
	Strategy    string
	Config      SimConfig
	Steps       []StepRecord
	Compactions []Compaction
	// Wall is the real time spent in the strategy's per-call check and its
	// compactions, excluding the time spent inside the summarizer.
	Wall time.Duration
}

// simStrategy is a way of keeping the conversation small before each model call.
type simStrategy interface {
	beforeModel(ctx context.Context, msgs []*schema.Message, contextTokens, step int) ([]*schema.Message, error)
}

// Simulate replays the trajectory of cfg through einocompact and through
// Eino's middleware and returns their results in that order. Both get the
// same script, the same tool schemas, the same token counter for every
// number reported (the default approximate counter stands for the
// provider's tokenizer) and summarizers with the same cost model.
func Simulate(ctx context.Context, cfg SimConfig) ([]*SimResult, error) {
	if cfg.Steps < 1 || cfg.Window < 1000 {
		return nil, fmt.Errorf("bench: SimConfig needs Steps >= 1 and Window >= 1000, got %d and %d", cfg.Steps, cfg.Window)
	}
	if cfg.CompactAt == 0 {
		cfg.CompactAt = 0.7
	}
	if cfg.CompactTo == 0 {
		cfg.CompactTo = 0.4
	}
	system, script := Trajectory(cfg.Shape, cfg.Steps, cfg.Window, cfg.Seed)
	var out []*SimResult
	for _, name := range []string{StrategyEinocompact, StrategyEino} {
		res, err := simulateOne(ctx, cfg, name, system, script)
		if err != nil {
			return nil, fmt.Errorf("bench: %s on %s: %w", name, cfg.Shape, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func simulateOne(ctx context.Context, cfg SimConfig, name string, system *schema.Message, script []Step) (*SimResult, error) {
	counter := compaction.DefaultCounter()
	tools := Tools()
	var calls []SummaryCall
	summarizer := &Summarizer{Counter: counter, OnCall: func(c SummaryCall) { calls = append(calls, c) }}
	strat, err := newSimStrategy(ctx, name, cfg, summarizer, counter, tools)
	if err != nil {
		return nil, err
	}

	res := &SimResult{Strategy: name, Config: cfg}
	msgs := []*schema.Message{system}
	contextTokens := 0
	for i, st := range script {
		msgs = append(msgs[:len(msgs):len(msgs)], st.Before...)
		before, err := counter.Count(ctx, msgs, tools)
		if err != nil {
			return nil, err
		}
		calls = calls[:0]
		start := time.Now()
		next, err := strat.beforeModel(ctx, msgs, contextTokens, i)
		wall := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		prompt, err := counter.Count(ctx, next, tools)
		if err != nil {
			return nil, err
		}
		var inside time.Duration
		for _, c := range calls {
			inside += c.Elapsed
		}
		res.Wall += wall - inside
		if !sameMessages(msgs, next) {
			c, err := compactionOf(ctx, counter, i, msgs, next, calls)
			if err != nil {
				return nil, err
			}
			c.Before, c.After = before, prompt
			if t, ok := strat.(tierReporter); ok {
				c.Tiers = t.lastTiers()
			}
			res.Compactions = append(res.Compactions, c)
		}
		res.Steps = append(res.Steps, StepRecord{Step: i, Before: before, Prompt: prompt})

		reply := *st.Reply
		completion := counter.Tokens(counter.MessageCost(&reply), 1)
		reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
		}}
		msgs = append(next[:len(next):len(next)], &reply)
		contextTokens = prompt + completion
	}
	return res, nil
}

func sameMessages(a, b []*schema.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compactionOf describes the step at which before became after.
func compactionOf(ctx context.Context, counter compaction.TokenCounter, step int, before, after []*schema.Message, calls []SummaryCall) (Compaction, error) {
	c := Compaction{Step: step, Calls: append([]SummaryCall(nil), calls...)}
	for _, call := range calls {
		c.InputTokens += call.InputTokens
		c.OutputTokens += call.OutputTokens
		c.Stall += call.Latency
	}
	old := make(map[*schema.Message]bool, len(before))
	for _, m := range before {
		if m.Role != schema.System {
			old[m] = true
		}
	}
	var kept []*schema.Message
	for _, m := range after {
		if old[m] {
			kept = append(kept, m)
		}
	}
	n, err := counter.Count(ctx, kept, nil)
	c.Retained = n
	return c, err
}

func newSimStrategy(ctx context.Context, name string, cfg SimConfig, summarizer *Summarizer, counter *compaction.ApproximateTokenCounter, tools []*schema.ToolInfo) (simStrategy, error) {
	switch name {
	case StrategyEinocompact:
		c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: summarizer, Logger: discardLogger})
		if err != nil {
			return nil, err
		}
		h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
			Compactor: c, ContextWindow: cfg.Window, CompactAt: cfg.CompactAt, CompactTo: cfg.CompactTo,
			TokenCounter: counter, Logger: discardLogger,
		})
		if err != nil {
			return nil, err
		}
		return &hookStrategy{hook: h, tools: tools}, nil
	case StrategyEino:
		mw, err := einosum.New(ctx, &einosum.Config{
			Model:        summarizer,
			Trigger:      &einosum.TriggerCondition{ContextTokens: int(float64(cfg.Window) * cfg.CompactAt)},
			TokenCounter: sameEstimate(counter),
		})
		if err != nil {
			return nil, err
		}
		return &einoStrategy{mw: mw, tools: tools}, nil
	}
	return nil, fmt.Errorf("unknown strategy %q", name)
}

// sameEstimate is the CompactionHook's estimate as an Eino token counter, so
// both strategies trigger at the same sizes: the last reply's reported usage
// plus the messages after it, or, without usage, everything and the tool
// schemas. (Eino's default counter takes bytes / 4, which triggers earlier
// on non-Latin text.)
func sameEstimate(counter compaction.TokenCounter) einosum.TokenCounterFunc {
	return func(ctx context.Context, in *einosum.TokenCounterInput) (int, error) {
		if i := compaction.LastAssistantIndex(in.Messages); i >= 0 {
			if m := in.Messages[i]; m.ResponseMeta != nil && m.ResponseMeta.Usage != nil && m.ResponseMeta.Usage.TotalTokens > 0 {
				n, err := counter.Count(ctx, in.Messages[i+1:], nil)
				return m.ResponseMeta.Usage.TotalTokens + n, err
			}
		}
		return counter.Count(ctx, in.Messages, in.Tools)
	}
}

// tierReporter is a strategy that can tell which planner tiers its last
// compaction used.
type tierReporter interface{ lastTiers() []string }

// hookStrategy drives a CompactionHook. It belongs to one simulated run, so
// it may remember the last report.
type hookStrategy struct {
	hook  *compaction.CompactionHook
	tools []*schema.ToolInfo
	last  compaction.Report
}

func (s *hookStrategy) beforeModel(ctx context.Context, msgs []*schema.Message, contextTokens, step int) ([]*schema.Message, error) {
	state := &hooks.State{Messages: msgs, Tools: s.tools, ContextTokens: contextTokens, StepCount: step}
	r, err := s.hook.Decide(ctx, state)
	if err != nil {
		return nil, err
	}
	s.last = r
	return state.Messages, nil
}

func (s *hookStrategy) lastTiers() []string {
	out := make([]string, len(s.last.Rounds))
	for i, r := range s.last.Rounds {
		out[i] = r.Tier
	}
	return out
}

type einoStrategy struct {
	mw    adk.ChatModelAgentMiddleware
	tools []*schema.ToolInfo
}

func (s *einoStrategy) beforeModel(ctx context.Context, msgs []*schema.Message, _, _ int) ([]*schema.Message, error) {
	_, out, err := s.mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: msgs, ToolInfos: s.tools}, &adk.ModelContext{})
	if err != nil {
		return nil, err
	}
	return out.Messages, nil
}
