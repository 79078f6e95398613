package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudwego/eino/components/model"

	compactfx "github.com/einocompact/einocompact/integration/fx"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

// The summarizer's defaults when the environment names an endpoint but not
// everything about it.
const (
	defaultSummarizerModel = "gpt-4o-mini"
	summarizerTimeout      = 2 * time.Minute
)

// newSummarizer picks the summarizer as the application does from its
// environment variables: the summarizer's own endpoint, else the agent
// model's (its key going with it), else the offline extractive summarizer,
// which offline forces. It returns the model and a description for the
// report.
func newSummarizer(ctx context.Context, lookup func(string) (string, bool), offline bool) (model.BaseChatModel, string, error) {
	get := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	base, key, name := get(compactfx.EnvSummarizerBaseURL), get(compactfx.EnvSummarizerAPIKey), get(compactfx.EnvSummarizerModel)
	if base == "" {
		base = get(compactfx.EnvModelBaseURL)
		if key == "" {
			key = get(compactfx.EnvModelAPIKey)
		}
	}
	if name == "" {
		name = get(compactfx.EnvModelName)
	}
	if name == "" {
		name = defaultSummarizerModel
	}
	if offline || base == "" {
		s, err := extractive.New(nil)
		if err != nil {
			return nil, "", err
		}
		return s, "offline extractive summarizer", nil
	}
	// The fx endpoint model, for its redaction: errors of the HTTP client
	// quote the base URL, and any key in it.
	cm, err := compactfx.NewEndpointModel(ctx, compactfx.ModelConfig{BaseURL: base, APIKey: key, Model: name, Timeout: compactfx.Duration(summarizerTimeout)})
	if err != nil {
		return nil, "", fmt.Errorf("summarizer: %w", err)
	}
	return cm, fmt.Sprintf("%s at %s", name, compactfx.RedactURL(base)), nil
}
