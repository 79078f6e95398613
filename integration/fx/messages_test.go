package compactfx

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
)

// A summarizer whose warm-up cannot connect fails the application's start
// with one message, said once: whose warm-up failed, what to do, the cause.
// Neither the layers it passed through (registry, hook, compactor, failover
// chain: each said "warm up" again) nor fx's event log repeat it; the cause
// is still in the chain.
func TestFailedWarmUpIsSaidOnce(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	base := closed.URL + "/v1"
	closed.Close()
	cfg := DefaultConfig()
	cfg.Summarizer.BaseURL, cfg.Summarizer.Model, cfg.Summarizer.WarmUp = base, "small", true
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	app := fx.New(fx.Supply(log), WithSlogEventLogger(), Module(cfg), fx.Invoke(func(*hooks.Registry) {}))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	err := app.Start(context.Background())
	if err == nil {
		t.Fatal("Start succeeded with a summarizer nobody listens for")
	}
	want := `compactfx: warm-up request to the summarizer ("small") failed: nothing listens at ` + base +
		` (SUMMARIZER_BASE_URL or summarizer.base_url): start the server, or set SUMMARIZER_BASE_URL or summarizer.base_url to one that runs: failed to create chat completion: Post "` +
		base + `/chat/completions": dial tcp `
	if !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "warm") != 1 {
		t.Errorf("Start:\n%v\nwant it to start with\n%s\nand say warm-up once", err, want)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Error("the cause is not in the chain")
	}
	if logs.Len() > 0 {
		t.Errorf("the failure was logged as well as returned:\n%s", logs.String())
	}
}

// Each configuration problem is reported once, by the key that holds it: a
// setting checked against another that is itself wrong is not reported
// again, nor a summarizer model that is missing only because model.model is.
func TestValidateSaysEachProblemOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   []string
	}{
		{"compact_to above compact_at", func(c *Config) { c.Compaction.CompactTo = 0.8 },
			[]string{"config: compaction.compact_to = 0.8: must be in (0, compaction.compact_at=0.7)"}},
		{"compact_at out of range", func(c *Config) { c.Compaction.CompactAt = 0 },
			[]string{"config: compaction.compact_at = 0: must be in (0, 1]"}},
		{"both out of range", func(c *Config) { c.Compaction.CompactAt, c.Compaction.CompactTo = 2, 1.5 },
			[]string{"config: compaction.compact_at = 2: must be in (0, 1]", "config: compaction.compact_to = 1.5: must be in (0, 1) and below compaction.compact_at"}},
		{"prepare_at alone", func(c *Config) { c.Compaction.PrepareAt = 0.9 },
			[]string{"config: compaction.prepare_at = 0.9: must be 0 (off) or in (compaction.compact_to=0.4, compaction.compact_at=0.7)"}},
		{"no model name for both endpoints", func(c *Config) { c.Model.BaseURL, c.Model.Model = "http://localhost:8080/v1", "" },
			[]string{`config: model.model = "": is required when an endpoint is configured`}},
		{"no model name for the summarizer's own endpoint", func(c *Config) { c.Summarizer.BaseURL, c.Model.Model = "http://localhost:8080/v1", "" },
			[]string{`config: summarizer.model = "": is required when the summarizer has an endpoint and model.model is empty`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tc.mutate(cfg)
			var got []string
			for _, e := range unjoin(cfg.Validate()) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// The agent's endpoint model, the real eino-ext client behind it, against a
// server that answers 404 page not found for a base URL without /v1: the
// error names both settings and the URL to set, once, before the cause.
func TestEndpointModelHintsAtV1(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	m, err := NewEndpointModel(context.Background(), ModelConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "gpt-4o-mini", Timeout: Duration(10e9)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), nil)
	want := "the base URL " + srv.URL + " (OPENAI_BASE_URL or model.base_url) has no /v1: the server answered 404 Not Found for " + srv.URL +
		"/chat/completions, while OpenAI-compatible servers serve /v1/chat/completions; set OPENAI_BASE_URL or model.base_url to " + srv.URL + "/v1: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "has no /v1") != 1 {
		t.Errorf("Generate:\n%v\nwant it to start with\n%s", err, want)
	}
}
