package compactfx

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/model"
)

// Summarizer is the chat model that writes compaction summaries. It is its
// own type so that the container can hold it next to the agent's model;
// replace it with fx.Decorate to plug in any model.BaseChatModel.
type Summarizer interface {
	model.BaseChatModel
}

// NewSummarizer builds the summarizer cfg selects: an EndpointModel when
// Config.SummarizerEndpoint is online, otherwise the offline summarizer.
func NewSummarizer(ctx context.Context, cfg *Config) (Summarizer, error) {
	if ep, online := cfg.SummarizerEndpoint(); online {
		return NewEndpointModel(ctx, ep)
	}
	return standInSummarizer{}, nil
}

// SummarizerName describes the summarizer cfg selects, for logs and reports.
func SummarizerName(cfg *Config) string {
	if ep, online := cfg.SummarizerEndpoint(); online {
		return fmt.Sprintf("%s at %s", ep.Model, ep.BaseURL)
	}
	return standInName
}
