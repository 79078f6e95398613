package compactfx

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cloudwego/eino/components/model"

	"github.com/einocompact/einocompact/summarizer/extractive"
	"github.com/einocompact/einocompact/summarizer/failover"
)

// Summarizer is the chat model that writes compaction summaries. It is its
// own type so that the container can hold it next to the agent's model;
// replace it with fx.Decorate to plug in any model.BaseChatModel.
type Summarizer interface {
	model.BaseChatModel
}

// OfflineSummarizerName is how SummarizerName describes the offline summarizer.
const OfflineSummarizerName = "offline extractive summarizer"

// newSummarizer builds the summarizer cfg selects. Offline, it is the
// extractive summarizer (package summarizer/extractive), which needs no
// network. Online, it is an EndpointModel behind a failover chain
// (package summarizer/failover) that retries it summarizer.retries times and
// then, with summarizer.fallback_offline, falls back to the extractive
// summarizer, so a summarizer outage never stops compaction. After a call
// whose every try failed the endpoint is skipped for summarizer.cool_down;
// log receives one warning saying so and naming the summarizer that writes
// instead; nil means slog.Default().
func newSummarizer(ctx context.Context, cfg *Config, log *slog.Logger) (Summarizer, error) {
	ep, online := cfg.SummarizerEndpoint()
	if !online {
		return newOffline()
	}
	section, envBase, envKey := "summarizer", EnvSummarizerBaseURL, EnvSummarizerAPIKey
	if cfg.Summarizer.BaseURL == "" {
		section, envBase, envKey = "model", EnvModelBaseURL, EnvModelAPIKey // the agent's endpoint serves both
	}
	em, err := newEndpointModel(ctx, ep, section, envBase, envKey)
	if err != nil {
		return nil, err
	}
	s := cfg.Summarizer
	if s.Retries == 0 && !s.FallbackOffline {
		return em, nil
	}
	candidates := []failover.Candidate{{Name: ep.Model, Model: em}}
	if s.FallbackOffline {
		off, err := newOffline()
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, failover.Candidate{Name: OfflineSummarizerName, Model: off})
	}
	coolDown := s.CoolDown.Std()
	if coolDown == 0 {
		coolDown = -1 // the key's 0 is "off"; the chain's is its default
	}
	chain, err := failover.New(&failover.Config{
		Candidates:     candidates,
		Retries:        s.Retries,
		BaseDelay:      s.RetryBaseDelay.Std(),
		MaxDelay:       s.RetryMaxDelay.Std(),
		AttemptTimeout: s.AttemptTimeout.Std(),
		CoolDown:       coolDown,
		Logger:         log,
	})
	if err != nil {
		return nil, fmt.Errorf("config: summarizer: %w", err)
	}
	return chain, nil
}

func newOffline() (Summarizer, error) {
	s, err := extractive.New(nil)
	if err != nil {
		return nil, fmt.Errorf("compactfx: offline summarizer: %w", err)
	}
	return s, nil
}

// SummarizerName describes the summarizer cfg selects, for logs and reports.
func SummarizerName(cfg *Config) string {
	ep, online := cfg.SummarizerEndpoint()
	if !online {
		return OfflineSummarizerName
	}
	name := fmt.Sprintf("%s at %s", ep.Model, RedactURL(ep.BaseURL))
	if cfg.Summarizer.FallbackOffline {
		name += ", falling back to the " + OfflineSummarizerName
	}
	return name
}
