package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/openaienv"
)

// A base URL without /v1 (the server answers 404 page not found, as a local
// server does for /chat/completions) fails the quickstart's run with an error
// that main explains: the run's error, through the agent, still carries the
// client's, so the hint names the setting and the URL to set it to.
func TestQuickstartExplainsABaseURLWithoutV1(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	ep := openaienv.FromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{openaienv.EnvBaseURL: srv.URL, openaienv.EnvAPIKey: "sk-test"}[k]
		return v, ok
	})
	if err := ep.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	var out bytes.Buffer
	err := run(context.Background(), &out, ep.BaseURL, ep.APIKey, ep.ModelOrDefault(), 3_000)
	if err == nil {
		t.Fatal("the run succeeded against a server that answers 404")
	}
	want := "set OPENAI_BASE_URL to " + srv.URL + "/v1: "
	if got := ep.Explain(err).Error(); !strings.Contains(got, want) {
		t.Errorf("main would print\n%s\nwant it to say %q", got, want)
	}
}

// With no environment at all, main stops before any request, naming the
// variable to set.
func TestQuickstartWithoutAKeySaysWhichToSet(t *testing.T) {
	t.Parallel()
	err := openaienv.FromEnv(func(string) (string, bool) { return "", false }).Check()
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY is not set") || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("Check() = %v, want it to name OPENAI_API_KEY and OPENAI_BASE_URL", err)
	}
}
