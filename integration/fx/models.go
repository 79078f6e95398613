package compactfx

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/model"

	"github.com/einocompact/einocompact/summarizer/extractive"
)

// Summarizer is the chat model that writes compaction summaries. It is its
// own type so that the container can hold it next to the agent's model;
// replace it with fx.Decorate to plug in any model.BaseChatModel.
type Summarizer interface {
	model.BaseChatModel
}

// NewSummarizer builds the summarizer cfg selects: an EndpointModel when
// Config.SummarizerEndpoint is online, otherwise the offline extractive
// summarizer (package summarizer/extractive), which needs no network.
func NewSummarizer(ctx context.Context, cfg *Config) (Summarizer, error) {
	if ep, online := cfg.SummarizerEndpoint(); online {
		return NewEndpointModel(ctx, ep)
	}
	s, err := extractive.New(nil)
	if err != nil {
		return nil, fmt.Errorf("compactfx: offline summarizer: %w", err)
	}
	return s, nil
}

// SummarizerName describes the summarizer cfg selects, for logs and reports.
func SummarizerName(cfg *Config) string {
	if ep, online := cfg.SummarizerEndpoint(); online {
		return fmt.Sprintf("%s at %s", ep.Model, ep.BaseURL)
	}
	return OfflineSummarizerName
}

// OfflineSummarizerName is how SummarizerName describes the offline summarizer.
const OfflineSummarizerName = "offline extractive summarizer"
