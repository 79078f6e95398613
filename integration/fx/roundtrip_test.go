package compactfx

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"go.yaml.in/yaml/v3"

	"github.com/einocompact/einocompact/openaitest"
)

// A Config written out as YAML reads back unchanged: durations are written
// as duration strings (Duration.MarshalYAML), which parse accepts, and every
// key written is one the strict decoder knows, the optional
// approximate_summary_tokens included.
func TestConfigYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Model.Timeout = Duration(90 * time.Second)
	cfg.Summarizer.AttemptTimeout = Duration(1500 * time.Millisecond)
	cfg.Compaction.Pipeline = []string{StrategySlide}
	cfg.Compaction.Summarize.ApproximateSummaryTokens = new(300) // an optional key, written
	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parse(data)
	if err != nil {
		t.Fatalf("parse of the marshalled config: %v\n%s", err, data)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("round trip changed the config:\n got %+v\nwant %+v", got, cfg)
	}
}

// WithTools keeps the EndpointModel wrapper, so the bound model still has
// WarmUp and Close, and binds the tools to the requests it sends.
func TestEndpointModelWithToolsKeepsLifecycle(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, openaitest.Script(openaitest.Text("OK"), openaitest.Text("done")))
	m := DefaultConfig().Model
	m.BaseURL, m.Model, m.WarmUp = srv.BaseURL(), "agent-model", true
	em, err := NewEndpointModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := em.WithTools([]*schema.ToolInfo{{Name: "lookup", Desc: "look a key up"}})
	if err != nil {
		t.Fatal(err)
	}
	be, ok := bound.(*EndpointModel)
	if !ok {
		t.Fatalf("WithTools returned %T, want *EndpointModel", bound)
	}
	if err := be.WarmUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := be.Generate(context.Background(), []*schema.Message{schema.UserMessage("q")}); err != nil {
		t.Fatal(err)
	}
	if err := be.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Tools) != 1 {
		t.Fatalf("endpoint saw %d requests (want warm-up and call), tools on the call: %d", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
}

func TestSummarizerName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no endpoint", func(*Config) {}, OfflineSummarizerName},
		{"offline wins over an endpoint", func(c *Config) {
			c.Model.BaseURL, c.Summarizer.Provider = "http://m.test/v1", ProviderOffline
		}, OfflineSummarizerName},
		{"the agent's endpoint and model", func(c *Config) {
			c.Model.BaseURL, c.Summarizer.FallbackOffline = "http://m.test/v1", false
		}, "gpt-4o-mini at http://m.test/v1"},
		{"its own model, with the fallback", func(c *Config) {
			c.Model.BaseURL, c.Summarizer.Model = "http://m.test/v1", "small"
		}, "small at http://m.test/v1, falling back to the " + OfflineSummarizerName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tt.mutate(cfg)
			if got := SummarizerName(cfg); got != tt.want {
				t.Errorf("SummarizerName() = %q, want %q", got, tt.want)
			}
		})
	}
}
