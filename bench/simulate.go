package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/adk"
	einosum "github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/components/model"
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
	// StrategyPrepared is StrategyEinocompact with HookConfig.PrepareAt
	// set: compactions are prepared in the background.
	StrategyPrepared = "einocompact-prepared"
	// StrategyPruning is StrategyEinocompact whose compactor is a Pipeline:
	// a ToolResultPruningCompactor in its defaults first, the
	// SummarizationCompactor only when pruning old tool results does not
	// reach the target.
	StrategyPruning = "einocompact-pruning"
	// StrategyEinoPrefix is StrategyEino configured to send its summarizer
	// the agent's prefix: Config.GenModelInput returns the agent's messages
	// as they are (system prompt included) followed by the middleware's
	// user instruction, and Config.ModelOptions passes the agent's tool
	// schemas. v0.9.21 has no option named for this; GenModelInput and
	// ModelOptions are how its configuration allows it.
	StrategyEinoPrefix = "eino-prefix"
	// StrategyNone compacts nothing: the window is taken to be unbounded.
	StrategyNone = "none"
	// StrategyFloorBound is a reference, not a configuration to use:
	// StrategyAligned's deep compactions with a summarizer that writes one
	// token and no identifier ledger, so a summary costs nearly nothing to
	// write and takes nearly no room. Its bill is about the least a
	// compaction that keeps a fifth of the window verbatim can cost here.
	StrategyFloorBound = "floor-bound"
	// StrategyAligned is StrategyEinocompact with
	// SummarizationConfig.CacheAligned: the summarizer gets the agent's
	// last request and one instruction.
	StrategyAligned = "einocompact-aligned"
	// StrategyPreparedAligned is StrategyPrepared with CacheAligned.
	StrategyPreparedAligned = "einocompact-prepared-aligned"
	// StrategyPruningAligned is StrategyPruning with CacheAligned.
	StrategyPruningAligned = "einocompact-pruning-aligned"
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
	// PrepareAt, when above 0, adds StrategyPrepared, the hook with this
	// HookConfig.PrepareAt.
	PrepareAt float64
	// Prices is HookConfig.Prices of einocompact's hooks (every strategy
	// built on a CompactionHook); nil leaves it unset, the hook's default.
	Prices *compaction.Prices
	// Pauses puts the trajectory's pauses (Step.Pause: tool run time, user
	// think time) on the simulated clock instead of ToolTime after each
	// step that calls tools; hooks see the time since the previous reply
	// (hooks.State.LastModelCallAt), so a cache lifetime in Prices
	// applies.
	Pauses bool
	// Strategies, when set, are the strategies to run, in this order,
	// instead of einocompact, Eino and (with PrepareAt) the prepared hook.
	// StrategyPrepared needs PrepareAt.
	Strategies []string
	// Script, when set, is the run to replay instead of Trajectory(Shape,
	// Steps, Window, Seed); Steps is then its length.
	Script *Script
	// Summarizer, when set, writes the summaries' text in place of the
	// Summarizer's generated one (Summarizer.Model).
	Summarizer model.BaseChatModel
	// Archive gives einocompact's hooks an archive (HookConfig.Archive, in
	// memory) and adds the recall tool's schema to the tools every request
	// sends; BillOf then prices a forgotten fact that was archived as
	// recall calls (see Bill.Recalled). Eino's strategies are unaffected.
	Archive bool
}

// StepRecord is one model call as a strategy made it.
type StepRecord struct {
	Step   int // 0-based
	Before int // the prompt in tokens had nothing been compacted at this step
	Prompt int // the prompt actually sent: messages and tool schemas, by the default counter
	// At is the simulated time at which the step's model call was due,
	// before any compaction it waited for.
	At time.Duration
}

// Compaction is one step at which a strategy replaced part of the conversation.
type Compaction struct {
	Step         int
	Calls        []SummaryCall // summarizer calls, in order
	InputTokens  int           // summed over Calls
	OutputTokens int           // summed over Calls
	// Stall is the simulated time the agent waited for the summarizer:
	// the latencies of the calls made at this step added up, since they
	// run one after another, plus, for a prepared compaction, what was
	// left of its background calls when the step's model call was due.
	Stall time.Duration
	// Prepared says the compaction applied was prepared in the
	// background (StrategyPrepared); Late that it was still being written
	// when the step's model call was due, so the call waited for it.
	Prepared, Late bool
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
	// Time is the simulated duration of the whole run: every model call
	// (ModelLatency), tool execution (ToolTime) and stall.
	Time time.Duration
	// Unused are the summarizer calls of compactions prepared in the
	// background and never applied; they cost input all the same.
	Unused []SummaryCall
	// Discarded counts the prepared compactions that were not applied.
	Discarded int
	// ColdApplied counts the compactions a prepared hook applied below the
	// trigger because the cache had gone cold (compaction.Report.ColdCache).
	ColdApplied int
	// Deferred counts the model calls that reached the trigger and went
	// out uncompacted because their prepared compaction was still being
	// written (compaction.Report.Deferred).
	Deferred int
	// Requests are every model request of the run as it was sent, main
	// model and summarizer, in the order a provider received them: a
	// step's synchronous summarizer calls, then its main-model call, then
	// the summarizer calls of a compaction it started in the background.
	Requests []Request

	blocks *blocker // the Requests' cache blocks, made by the first BillOf
	// archive is what the run's hook archived (SimConfig.Archive); nil
	// without one.
	archive *simArchive
}

// Request is one model request of a simulated run, as sent.
type Request struct {
	// Step is the model call that made the request, or whose compaction
	// (synchronous or started in the background) made it.
	Step int
	// Summarizer says it went to the summarizer; Background that it was
	// part of a compaction prepared in the background.
	Summarizer, Background bool
	Tools                  []*schema.ToolInfo
	Messages               []*schema.Message
	Output                 int // tokens written
	// At is the simulated time the request was sent: a main-model call
	// after any compaction it waited for, a summarizer call once the calls
	// of its compaction before it were answered.
	At time.Duration
}

// The time model of the agent's own calls: the main model answers after
// 500 ms plus 0.05 ms per prompt token (prefill) and 20 ms per completion
// token (decoding), and a step that calls tools spends 500 ms running them
// (in parallel). Like the summarizer's, these are round numbers for a hosted
// model; what matters is that a background compaction has the time of
// several model calls to finish.
const (
	mainFirstToken      = 500 * time.Millisecond
	mainPrefillPerToken = 50 * time.Microsecond
	mainDecodePerToken  = 20 * time.Millisecond
	// ToolTime is the simulated time a step spends running its tool calls.
	ToolTime = 500 * time.Millisecond
)

// ModelLatency is the simulated time of a main-model call sending prompt
// tokens and receiving completion tokens.
func ModelLatency(prompt, completion int) time.Duration {
	return mainFirstToken + time.Duration(prompt)*mainPrefillPerToken + time.Duration(completion)*mainDecodePerToken
}

// simStrategy is a way of keeping the conversation small before each model call.
type simStrategy interface {
	beforeModel(ctx context.Context, msgs []*schema.Message, contextTokens, step int) ([]*schema.Message, error)
}

// Simulate replays the trajectory of cfg through einocompact and through
// Eino's middleware, and with cfg.PrepareAt through einocompact preparing
// its compactions, and returns their results in that order. Both get the
// same script, the same tool schemas, the same token counter for every
// number reported (the default approximate counter stands for the
// provider's tokenizer) and summarizers with the same cost model.
func Simulate(ctx context.Context, cfg SimConfig) ([]*SimResult, error) {
	if cfg.Script != nil {
		cfg.Steps = len(cfg.Script.Steps)
	}
	if cfg.Steps < 1 || cfg.Window < 1000 {
		return nil, fmt.Errorf("bench: SimConfig needs Steps >= 1 and Window >= 1000, got %d and %d", cfg.Steps, cfg.Window)
	}
	if cfg.CompactAt == 0 {
		cfg.CompactAt = 0.7
	}
	if cfg.CompactTo == 0 {
		cfg.CompactTo = 0.4
	}
	var system *schema.Message
	var script []Step
	if cfg.Script != nil {
		system, script = cfg.Script.System, cfg.Script.Steps
	} else {
		system, script = Trajectory(cfg.Shape, cfg.Steps, cfg.Window, cfg.Seed)
	}
	var out []*SimResult
	names := []string{StrategyEinocompact, StrategyEino}
	if cfg.PrepareAt > 0 {
		names = append(names, StrategyPrepared)
	}
	if cfg.Strategies != nil {
		names = cfg.Strategies
	}
	for _, name := range names {
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
	run, err := newRunTools(ctx, cfg, name)
	if err != nil {
		return nil, err
	}
	tools := run.tools
	// Calls by the step whose compaction made them, the synchronous ones
	// apart from those of compactions prepared in the background (which
	// arrive from the hook's goroutines, and which the step that applies a
	// compaction may start as well).
	var mu sync.Mutex
	byOrigin, bgByOrigin := map[int][]SummaryCall{}, map[int][]SummaryCall{}
	var every []SummaryCall // in the order they were made
	summarizer := &Summarizer{Counter: counter, Model: cfg.Summarizer, OnCall: func(c SummaryCall) {
		mu.Lock()
		defer mu.Unlock()
		every = append(every, c)
		if c.Background {
			bgByOrigin[c.Origin] = append(bgByOrigin[c.Origin], c)
		} else {
			byOrigin[c.Origin] = append(byOrigin[c.Origin], c)
		}
	}}
	takeFrom := func(m map[int][]SummaryCall) func(int) []SummaryCall {
		return func(origin int) []SummaryCall {
			mu.Lock()
			defer mu.Unlock()
			c := m[origin]
			delete(m, origin)
			return c
		}
	}
	take, takeBg := takeFrom(byOrigin), takeFrom(bgByOrigin)
	var gate *simGate
	if name == StrategyPrepared || name == StrategyPreparedAligned {
		gate = newSimGate(func(origin int) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			var d time.Duration
			for _, c := range bgByOrigin[origin] {
				d += c.Latency
			}
			return d
		})
	}
	strat, err := newSimStrategy(ctx, name, cfg, summarizer, counter, tools, gate, run.archive)
	if err != nil {
		return nil, err
	}

	res := &SimResult{Strategy: name, Config: cfg, archive: run.kept}
	mains := make([]Request, 0, len(script))
	msgs := []*schema.Message{system}
	contextTokens := 0
	var now, replied time.Duration
	at := make([]time.Duration, len(script))
	for i, st := range script {
		if cfg.Pauses {
			now += st.Pause
		}
		if hs, ok := strat.(*hookStrategy); ok && i > 0 {
			hs.idle = now - replied
		}
		msgs = append(msgs[:len(msgs):len(msgs)], st.Before...)
		before, err := counter.Count(ctx, msgs, tools)
		if err != nil {
			return nil, err
		}
		at[i] = now
		gate.advance(now)
		start := time.Now()
		next, err := strat.beforeModel(withOrigin(ctx, i), msgs, contextTokens, i)
		wall := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		p, prep := strat.(preparedReporter)
		if prep && p.lastDeferred() {
			res.Deferred++
		}
		prompt, err := counter.Count(ctx, next, tools)
		if err != nil {
			return nil, err
		}
		// The calls of a compaction this step started preparing are
		// taken when it is applied.
		calls := take(i)
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
			if prep && p.lastPrepared() {
				c.Prepared = true
				addPrepared(&c, res, at, now, i, takeBg)
			} else {
				res.discardPrepared(i, takeBg)
			}
			now += c.Stall
			res.Compactions = append(res.Compactions, c)
		}
		if prep {
			// A compaction this step started runs from the end of its
			// stall.
			gate.settle(i, now, p.lastPreparing())
		}
		res.Steps = append(res.Steps, StepRecord{Step: i, Before: before, Prompt: prompt, At: at[i]})

		reply := *st.Reply
		completion := ReplyTokens(&reply)
		reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
		}}
		mains = append(mains, Request{Step: i, Tools: tools, Messages: next, Output: completion, At: now})
		msgs = append(next[:len(next):len(next)], &reply)
		contextTokens = prompt + completion
		now += ModelLatency(prompt, completion)
		replied = now
		if len(reply.ToolCalls) > 0 && !cfg.Pauses {
			now += ToolTime
		}
	}
	res.Time = now
	if hs, ok := strat.(*hookStrategy); ok {
		res.ColdApplied = hs.cold
	}
	if c, ok := strat.(closer); ok {
		// Waits for compactions still being prepared, which finish
		// although the run is over (see simStrategy's notes).
		if err := c.close(ctx); err != nil {
			return nil, err
		}
	}
	res.discardPrepared(len(script), takeBg)
	mu.Lock()
	res.Requests = inSendingOrder(mains, every, at)
	mu.Unlock()
	return res, nil
}

// inSendingOrder merges the main-model requests (one per step, in order)
// and the summarizer calls (in the order they were made) the way a
// provider received them: before step i's call, the synchronous summarizer
// calls its compaction made; after it, those of a compaction it started in
// the background, which runs while the call is answered.
//
// Times (Request.At): a compaction's calls run one after another from
// start, when its step's call was due (at).
func inSendingOrder(mains []Request, calls []SummaryCall, at []time.Duration) []Request {
	out := make([]Request, 0, len(mains)+len(calls))
	summary := func(c SummaryCall, start time.Duration) Request {
		return Request{Step: c.Origin, Summarizer: true, Background: c.Background, Tools: c.Tools, Messages: c.Messages, Output: c.OutputTokens, At: start}
	}
	used := make([]bool, len(calls))
	take := func(step int, background bool) {
		var start time.Duration
		if step < len(at) {
			start = at[step]
		}
		for k, c := range calls {
			if !used[k] && c.Origin == step && c.Background == background {
				used[k] = true
				out = append(out, summary(c, start))
				start += c.Latency
			}
		}
	}
	for _, m := range mains {
		take(m.Step, false)
		out = append(out, m)
		take(m.Step, true)
	}
	for k, c := range calls {
		if !used[k] {
			var start time.Duration
			if c.Origin < len(at) {
				start = at[c.Origin]
			}
			out = append(out, summary(c, start))
		}
	}
	return out
}

// addPrepared adds to c, applied at step i with the model call due at now,
// the calls of the compaction prepared in the background: those of the
// latest earlier step that made any. They started when that step's call
// was due (at) and ran one after another; what is left of them at now is
// stall. Earlier steps' calls belong to prepared compactions never used.
func addPrepared(c *Compaction, res *SimResult, at []time.Duration, now time.Duration, i int, take func(int) []SummaryCall) {
	for s := i - 1; s >= 0; s-- {
		calls := take(s)
		if len(calls) == 0 {
			continue
		}
		ready := at[s]
		for _, call := range calls {
			ready += call.Latency
			c.InputTokens += call.InputTokens
			c.OutputTokens += call.OutputTokens
		}
		c.Calls = append(calls, c.Calls...)
		if ready > now {
			c.Stall += ready - now
			c.Late = true
		}
		res.discardPrepared(s, take)
		return
	}
}

// discardPrepared moves the calls of steps before i, which no applied
// compaction used, to Unused, counting each step's as one discarded
// prepared compaction.
func (res *SimResult) discardPrepared(i int, take func(int) []SummaryCall) {
	for s := range i {
		if calls := take(s); len(calls) > 0 {
			res.Unused = append(res.Unused, calls...)
			res.Discarded++
		}
	}
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

func newSimStrategy(ctx context.Context, name string, cfg SimConfig, summarizer *Summarizer, counter *compaction.ApproximateTokenCounter, tools []*schema.ToolInfo, gate *simGate, arch compaction.Archive) (simStrategy, error) {
	switch name {
	case StrategyEinocompact, StrategyPrepared, StrategyAligned, StrategyPreparedAligned:
		aligned := name == StrategyAligned || name == StrategyPreparedAligned
		c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: summarizer, Logger: discardLogger, CacheAligned: aligned})
		if err != nil {
			return nil, err
		}
		var comp compaction.Compactor = c
		prepareAt := 0.0
		var onPrepared func(context.Context, compaction.PreparedDone)
		if name == StrategyPrepared || name == StrategyPreparedAligned {
			prepareAt = cfg.PrepareAt
			comp, onPrepared = gate.compactor(c), gate.onPrepared
		}
		h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
			Compactor: comp, ContextWindow: cfg.Window, CompactAt: cfg.CompactAt, CompactTo: cfg.CompactTo, PrepareAt: prepareAt,
			TokenCounter: counter, Logger: discardLogger, OnPrepared: onPrepared, Prices: cfg.Prices, Archive: arch,
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
	case StrategyEinoPrefix:
		mw, err := einosum.New(ctx, &einosum.Config{
			Model:        summarizer,
			ModelOptions: []model.Option{model.WithTools(tools)},
			Trigger:      &einosum.TriggerCondition{ContextTokens: int(float64(cfg.Window) * cfg.CompactAt)},
			TokenCounter: sameEstimate(counter),
			GenModelInput: func(_ context.Context, _, instruction *schema.Message, original []*schema.Message) ([]*schema.Message, error) {
				return append(slices.Clip(original), instruction), nil
			},
		})
		if err != nil {
			return nil, err
		}
		return &einoStrategy{mw: mw, tools: tools}, nil
	case StrategyPruning, StrategyPruningAligned:
		s, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: summarizer, Logger: discardLogger,
			CacheAligned: name == StrategyPruningAligned})
		if err != nil {
			return nil, err
		}
		p, err := compaction.NewToolResultPruningCompactor(ctx, nil)
		if err != nil {
			return nil, err
		}
		pipe, err := compaction.NewPipeline(p, s)
		if err != nil {
			return nil, err
		}
		h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
			Compactor: pipe, ContextWindow: cfg.Window, CompactAt: cfg.CompactAt, CompactTo: cfg.CompactTo,
			TokenCounter: counter, Logger: discardLogger, Prices: cfg.Prices, Archive: arch,
		})
		if err != nil {
			return nil, err
		}
		return &hookStrategy{hook: h, tools: tools}, nil
	case StrategyFloorBound:
		c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: oneToken{summarizer}, Logger: discardLogger,
			CacheAligned: true, Ledger: &compaction.LedgerConfig{Disabled: true}})
		if err != nil {
			return nil, err
		}
		h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
			Compactor: c, ContextWindow: cfg.Window, CompactAt: cfg.CompactAt, CompactTo: cfg.CompactTo,
			TokenCounter: counter, Logger: discardLogger, Prices: cfg.Prices, Archive: arch,
		})
		if err != nil {
			return nil, err
		}
		return &hookStrategy{hook: h, tools: tools}, nil
	case StrategyNone:
		return noCompaction{}, nil
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
	// idle is the simulated time since the previous reply arrived, set by
	// the driver before each call but the first.
	idle time.Duration
	cold int // compactions applied early because the cache had gone cold
}

func (s *hookStrategy) beforeModel(ctx context.Context, msgs []*schema.Message, contextTokens, step int) ([]*schema.Message, error) {
	state := &hooks.State{Messages: msgs, Tools: s.tools, ContextTokens: contextTokens, StepCount: step}
	if s.idle > 0 {
		// The hook reads the wall clock: the previous reply arrived the
		// simulated idle time before now.
		state.LastModelCallAt = time.Now().Add(-s.idle)
	}
	r, err := s.hook.Decide(ctx, state)
	if err != nil {
		return nil, err
	}
	s.last = r
	if r.ColdCache && r.Compacted && !r.Triggered {
		s.cold++
	}
	return state.Messages, nil
}

// preparedReporter is a strategy that can tell whether the compaction of
// its last check was prepared in the background, whether the check started
// preparing one, and whether it deferred a triggered compaction.
type preparedReporter interface {
	lastPrepared() bool
	lastPreparing() bool
	lastDeferred() bool
}

// closer is a strategy holding resources until the end of a run.
type closer interface {
	close(ctx context.Context) error
}

func (s *hookStrategy) lastPrepared() bool { return s.last.Prepared }

func (s *hookStrategy) lastPreparing() bool { return s.last.Preparing }

func (s *hookStrategy) lastDeferred() bool { return s.last.Deferred }

func (s *hookStrategy) close(ctx context.Context) error { return s.hook.Close(ctx) }

func (s *hookStrategy) lastTiers() []string {
	out := make([]string, len(s.last.Rounds))
	for i, r := range s.last.Rounds {
		out[i] = r.Tier
	}
	return out
}

// noCompaction sends every message: an agent whose window never fills.
type noCompaction struct{}

func (noCompaction) beforeModel(_ context.Context, msgs []*schema.Message, _, _ int) ([]*schema.Message, error) {
	return msgs, nil
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

// oneToken is a summarizer that writes at most one token (StrategyFloorBound).
type oneToken struct{ *Summarizer }

func (o oneToken) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return o.Summarizer.Generate(ctx, input, append(opts, model.WithMaxTokens(1))...)
}
