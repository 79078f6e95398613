package compactfx

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/tiktoken"
)

// newCounter builds the token counter compaction.counter describes.
func newCounter(c CounterConfig) (compaction.TokenCounter, error) {
	switch c.Kind {
	case CounterApproximate:
	case CounterTiktoken:
		counter, err := tiktoken.New(&tiktoken.Config{
			Encoding:       tiktoken.Encoding(c.Encoding),
			TokensPerImage: explicitCharge(c.TokensPerImage),
			TokensPerFile:  explicitCharge(c.TokensPerFile),
		})
		if err != nil {
			return nil, fmt.Errorf("config: compaction.counter: %w", err)
		}
		return counter, nil
	default:
		return nil, fmt.Errorf("config: compaction.counter.kind = %q: must be %q or %q", c.Kind, CounterApproximate, CounterTiktoken)
	}
	counter, err := compaction.NewApproximateTokenCounter(&compaction.ApproximateConfig{
		CharsPerToken:  c.CharsPerToken,
		TokensPerImage: explicitCharge(c.TokensPerImage),
		TokensPerFile:  explicitCharge(c.TokensPerFile),
	})
	if err != nil {
		return nil, fmt.Errorf("config: compaction.counter: %w", err)
	}
	return counter, nil
}

// explicitCharge maps a per-attachment charge from the configuration onto the
// counters' configs. The configuration's defaults are filled in before the
// file is read, so a 0 here was written by the user and means zero, while the
// counters read 0 as "the default" and spell zero compaction.NoCharge, which
// the configuration accepts as well.
func explicitCharge(tokens int) int {
	if tokens == 0 || tokens == compaction.NoCharge {
		return compaction.NoCharge
	}
	return tokens
}

// compactorDeps are what newCompactor needs besides the configuration.
type compactorDeps struct {
	// Summarizer writes summaries for the "summarize" strategy.
	Summarizer Summarizer
	// SummarizerIsAgent says the summarizer is the agent's model
	// (Config.SummarizerIsAgentModel): cache_aligned left unset is on.
	SummarizerIsAgent bool
	// Logger receives the compactors' warnings. Default slog.Default().
	Logger *slog.Logger
	// SummarizerMaxTokens is summarizer.max_tokens, the summarizer client's
	// completion cap: a round's per-call max tokens replaces it, so the
	// compactor bounds that by it. 0: no cap.
	SummarizerMaxTokens int
}

// newCompactor builds the compactor compaction.strategy selects.
func newCompactor(ctx context.Context, c CompactionConfig, deps compactorDeps) (compaction.Compactor, error) {
	if c.Strategy != StrategyPipeline {
		return newStage(ctx, c, c.Strategy, "compaction.strategy", deps)
	}
	stages := make([]compaction.Compactor, 0, len(c.Pipeline))
	for i, name := range c.Pipeline {
		s, err := newStage(ctx, c, name, fmt.Sprintf("compaction.pipeline[%d]", i), deps)
		if err != nil {
			return nil, err
		}
		stages = append(stages, s)
	}
	p, err := compaction.NewPipeline(stages...)
	if err != nil {
		return nil, fmt.Errorf("config: compaction.pipeline: %w", err)
	}
	return p, nil
}

func newStage(ctx context.Context, c CompactionConfig, name, key string, deps compactorDeps) (compaction.Compactor, error) {
	switch canonicalStrategy(name) {
	case StrategySummarize:
		if deps.Summarizer == nil {
			return nil, fmt.Errorf("config: %s = %q: no summarizer model", key, name)
		}
		// Pointer fields pass through: nil means the library's default, and
		// the constructor reads each value once, keeping no pointer.
		s := c.Summarize
		aligned := deps.SummarizerIsAgent
		if s.CacheAligned != nil {
			aligned = *s.CacheAligned
		}
		comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
			ChatModel:                deps.Summarizer,
			MinKeepSteps:             &s.MinKeepSteps,
			ApproximateSummaryTokens: s.ApproximateSummaryTokens,
			SummaryInstruction:       s.SummaryInstruction,
			RaiseOnFailure:           s.RaiseOnFailure,
			Logger:                   deps.Logger,
			MaxRoundInputTokens:      new(s.MaxSummarizerInputTokens),
			MaxTextTokens:            s.MaxTextTokens,
			CacheAligned:             aligned,
			MaxRoundOutputTokens:     new(deps.SummarizerMaxTokens),
			Ledger: &compaction.LedgerConfig{
				Disabled:      !s.Ledger.Enabled,
				MaxTokens:     s.Ledger.MaxTokens,
				MaxRemembered: s.Ledger.MaxRemembered,
			},
		})
		return wrapKey(comp, err, "compaction.summarize")
	case StrategySlide:
		note := c.Slide.OmissionNote
		cfg := &compaction.SlidingWindowConfig{MinKeepSteps: &c.Slide.MinKeepSteps}
		if c.Slide.NoNote {
			note = ""
		}
		if note != "" || c.Slide.NoNote {
			cfg.OmissionNote = &note
		}
		comp, err := compaction.NewSlidingWindowCompactor(ctx, cfg)
		return wrapKey(comp, err, "compaction.slide")
	case StrategyPrune:
		comp, err := compaction.NewToolResultPruningCompactor(ctx, &compaction.ToolResultPruningConfig{
			MinKeepSteps: &c.Prune.MinKeepSteps,
			MinTokens:    &c.Prune.MinTokens,
			Placeholder:  c.Prune.Placeholder,
		})
		return wrapKey(comp, err, "compaction.prune")
	default:
		return nil, fmt.Errorf("config: %s = %q: must be one of %q, %q, %q", key, name, StrategySummarize, StrategySlide, StrategyPrune)
	}
}

// wrapKey returns comp as a Compactor, or err prefixed with the config
// section it came from. Taking the concrete pointer type avoids storing a
// typed nil in the interface when construction failed.
func wrapKey[C compaction.Compactor](comp C, err error, key string) (compaction.Compactor, error) {
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", key, err)
	}
	return comp, nil
}
