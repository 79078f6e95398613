package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/tiktoken"
)

// The strategies and counters the tool offers.
const (
	strategySummarize = "summarize"
	strategySlide     = "slide"
	strategyPrune     = "prune"
	strategyPipeline  = "pipeline" // prune, then summarize

	counterApprox = "approx"
	counterO200k  = "o200k"
	counterCl100k = "cl100k"
)

func newCounter(kind string) (compaction.TokenCounter, error) {
	switch kind {
	case counterApprox:
		return compaction.DefaultCounter(), nil
	case counterO200k:
		return tiktoken.New(&tiktoken.Config{Encoding: tiktoken.O200kBase})
	case counterCl100k:
		return tiktoken.New(&tiktoken.Config{Encoding: tiktoken.Cl100kBase})
	}
	return nil, usageErrorf("--counter %q: must be %s, %s or %s", kind, counterApprox, counterO200k, counterCl100k)
}

// canonicalStrategy maps a strategy given by the name its markers carry
// ("summarization", "sliding_window", "tool_result_pruning") onto the
// tool's name for it, as the fx configuration does; --strategy names what
// to do, a marker what was done.
func canonicalStrategy(s string) string {
	switch s {
	case compaction.StrategySummarization:
		return strategySummarize
	case compaction.StrategySlidingWindow:
		return strategySlide
	case compaction.StrategyToolResultPruning:
		return strategyPrune
	}
	return s
}

// compactorSetup is what newCompactor built, for the report.
type compactorSetup struct {
	compactor  compaction.Compactor
	summarizer string // "" when the strategy writes no summaries
}

// newCompactor builds the compactor of strategy. The summarizer is chosen as
// the application chooses it: an OpenAI-compatible endpoint from the same
// environment variables (lookup), else the offline extractive summarizer;
// offline forces the latter. summaryTokens, when above 0, replaces the
// summarizer's planned summary size. Each finished round is reported to
// progress.
func newCompactor(ctx context.Context, strategy string, summaryTokens int, offline bool, lookup func(string) (string, bool),
	progressOut io.Writer, log *slog.Logger) (compactorSetup, error) {
	progress := progressLine(progressOut)
	strategy = canonicalStrategy(strategy)
	switch strategy {
	case strategySlide:
		c, err := compaction.NewSlidingWindowCompactor(ctx, nil)
		return compactorSetup{compactor: c}, err
	case strategyPrune:
		c, err := compaction.NewToolResultPruningCompactor(ctx, nil)
		return compactorSetup{compactor: c}, err
	case strategySummarize, strategyPipeline:
	default:
		return compactorSetup{}, usageErrorf("--strategy %q: must be %s, %s, %s or %s", strategy,
			strategySummarize, strategySlide, strategyPrune, strategyPipeline)
	}
	chat, name, err := newSummarizer(ctx, lookup, offline)
	if err != nil {
		return compactorSetup{}, err
	}
	cfg := &compaction.SummarizationConfig{
		ChatModel: &announcer{BaseChatModel: chat, w: progressOut}, Logger: log, OnRound: progress,
	}
	if summaryTokens > 0 {
		cfg.ApproximateSummaryTokens = &summaryTokens
	}
	sum, err := compaction.NewSummarizationCompactor(ctx, cfg)
	if err != nil {
		return compactorSetup{}, err
	}
	setup := compactorSetup{compactor: sum, summarizer: name}
	if strategy == strategyPipeline {
		prune, err := compaction.NewToolResultPruningCompactor(ctx, nil)
		if err != nil {
			return compactorSetup{}, err
		}
		if setup.compactor, err = compaction.NewPipeline(prune, sum); err != nil {
			return compactorSetup{}, err
		}
	}
	return setup, nil
}

// announcer says on w when each summarizer call starts, so a slow remote
// model visibly works; it forwards the model's lifecycle.
type announcer struct {
	model.BaseChatModel
	w     io.Writer
	calls atomic.Int32
}

func (a *announcer) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	fmt.Fprintf(a.w, "einocompact: round %d: summarizing...\n", a.calls.Add(1))
	return a.BaseChatModel.Generate(ctx, in, opts...)
}

func (a *announcer) WarmUp(ctx context.Context) error {
	if w, ok := a.BaseChatModel.(hooks.WarmUpper); ok {
		return w.WarmUp(ctx)
	}
	return nil
}

func (a *announcer) Close(ctx context.Context) error {
	if c, ok := a.BaseChatModel.(hooks.Closer); ok {
		return c.Close(ctx)
	}
	return nil
}

// progressLine reports a finished summarizer round on w, so a long run with a
// remote model shows it is alive.
func progressLine(w io.Writer) func(context.Context, compaction.Round) {
	n := 0
	return func(_ context.Context, r compaction.Round) {
		n++
		if r.Err != nil {
			fmt.Fprintf(w, "einocompact: round %d (%s) failed after %s: %v\n", n, r.Tier, latency(r.Latency), r.Err)
			return
		}
		fmt.Fprintf(w, "einocompact: round %d (%s): %d messages summarized, %d -> %d tokens in %s\n",
			n, r.Tier, len(r.Indices), r.TokensBefore, r.TokensAfter, latency(r.Latency))
	}
}
