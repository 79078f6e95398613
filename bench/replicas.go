package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// ReplicaConfig describes a simulation of a service running Replicas
// processes, each with its own CompactionHook (a SummarizationCompactor in
// its defaults, PrepareAt set), serving Conversations conversations whose
// turns are routed to a replica at random, with or without a shared Store.
type ReplicaConfig struct {
	Shape         Shape
	Steps         int // model calls per conversation; >= 1
	Window        int // context window in tokens; >= 1000
	Conversations int // >= 1
	Replicas      int // >= 1
	// Shared gives every replica's hook one compaction.MemoryStore: the
	// protocol a Redis store runs, without Redis' round trips.
	Shared    bool
	PrepareAt float64 // HookConfig.PrepareAt; must be set
	Seed      uint64  // picks the trajectories and the routing
}

// ReplicaResult is what a replica simulation measured.
type ReplicaResult struct {
	Config ReplicaConfig
	// Compactions applied, over all conversations.
	Compactions int
	// SummarizerCalls made by every replica, prepared ones included.
	SummarizerCalls int
	// Stalls are, per compaction applied, the simulated time the model
	// call waited for the summarizer: the latencies of the calls made
	// while it waited, added up. A compaction prepared in the background
	// (here or on another replica) finishes between turns in this model
	// (a turn's tools and model call take seconds), so it stalls nothing.
	Stalls []time.Duration
}

// CallsPerConversation is SummarizerCalls over the conversations.
func (r *ReplicaResult) CallsPerConversation() float64 {
	return float64(r.SummarizerCalls) / float64(r.Config.Conversations)
}

// MeanStall is the mean of Stalls, 0 without compactions.
func (r *ReplicaResult) MeanStall() time.Duration {
	if len(r.Stalls) == 0 {
		return 0
	}
	var sum time.Duration
	for _, s := range r.Stalls {
		sum += s
	}
	return sum / time.Duration(len(r.Stalls))
}

// awaitedSummarizer records each call's simulated latency as a stall when
// the model call waits for it (compaction.Awaited is closed: a synchronous
// compaction), and counts every call.
type awaitedSummarizer struct {
	inner *Summarizer
	mu    sync.Mutex
	calls int
	stall time.Duration // of the model call being decided
}

func (a *awaitedSummarizer) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	var latency time.Duration
	s := *a.inner
	s.OnCall = func(c SummaryCall) { latency = c.Latency }
	out, err := s.Generate(ctx, in, opts...)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	select {
	case <-compaction.Awaited(ctx):
		a.stall += latency
	default:
	}
	return out, err
}

func (a *awaitedSummarizer) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := a.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func (a *awaitedSummarizer) takeStall() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stall
	a.stall = 0
	return s
}

// SimulateReplicas runs cfg: every conversation advances one model call per
// round, each call decided by the hook of a replica drawn at random, and
// every replica's background compactions finish before the next call.
func SimulateReplicas(ctx context.Context, cfg ReplicaConfig) (*ReplicaResult, error) {
	if cfg.Steps < 1 || cfg.Window < 1000 || cfg.Conversations < 1 || cfg.Replicas < 1 || cfg.PrepareAt <= 0 {
		return nil, fmt.Errorf("bench: ReplicaConfig needs Steps >= 1, Window >= 1000, Conversations >= 1, Replicas >= 1 and PrepareAt > 0, got %+v", cfg)
	}
	counter := compaction.DefaultCounter()
	sum := &awaitedSummarizer{inner: &Summarizer{Counter: counter}}
	var store compaction.Store
	if cfg.Shared {
		store = compaction.NewMemoryStore()
	}
	hs := make([]*compaction.CompactionHook, cfg.Replicas)
	for i := range hs {
		c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sum, Logger: discardLogger})
		if err != nil {
			return nil, err
		}
		if hs[i], err = compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: c, ContextWindow: cfg.Window,
			PrepareAt: cfg.PrepareAt, TokenCounter: counter, Logger: discardLogger, Store: store}); err != nil {
			return nil, err
		}
		defer hs[i].Close(context.WithoutCancel(ctx))
	}
	type conv struct {
		msgs          []*schema.Message
		script        []Step
		contextTokens int
	}
	convs := make([]*conv, cfg.Conversations)
	for i := range convs {
		system, script := Trajectory(cfg.Shape, cfg.Steps, cfg.Window, cfg.Seed*1000+uint64(i))
		convs[i] = &conv{msgs: []*schema.Message{system}, script: script}
	}
	route := rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.Replicas)))
	tools := Tools()
	res := &ReplicaResult{Config: cfg}
	for step := range cfg.Steps {
		for _, c := range convs {
			st := c.script[step]
			c.msgs = append(c.msgs[:len(c.msgs):len(c.msgs)], st.Before...)
			state := &hooks.State{Messages: c.msgs, Tools: tools, ContextTokens: c.contextTokens, StepCount: step}
			r, err := hs[route.IntN(len(hs))].Decide(ctx, state)
			if err != nil {
				return nil, fmt.Errorf("step %d: %w", step, err)
			}
			if stall := sum.takeStall(); r.Compacted {
				res.Compactions++
				res.Stalls = append(res.Stalls, stall)
			}
			for _, h := range hs {
				if err := h.WaitPrepared(ctx); err != nil {
					return nil, err
				}
			}
			prompt, err := counter.Count(ctx, state.Messages, tools)
			if err != nil {
				return nil, err
			}
			reply := *st.Reply
			completion := counter.Tokens(counter.MessageCost(&reply), 1)
			reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: prompt, CompletionTokens: completion,
				TotalTokens: prompt + completion}}
			c.msgs = append(slices.Clip(state.Messages), &reply)
			c.contextTokens = prompt + completion
		}
	}
	for _, h := range hs {
		if err := h.Close(ctx); err != nil {
			return nil, err
		}
	}
	res.SummarizerCalls = sum.calls
	return res, nil
}
