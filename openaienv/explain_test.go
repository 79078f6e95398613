package openaienv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
)

// callEndpoint makes one request with the real eino-ext client, as the
// quickstart's model does, and returns its error.
func callEndpoint(t *testing.T, ep Endpoint) error {
	t.Helper()
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Model: ep.ModelOrDefault()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cm.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err == nil {
		t.Fatal("the request succeeded; the server is meant to refuse it")
	}
	return err
}

// jsonError answers every request with an OpenAI-style error body.
func jsonError(status int, code, message string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":%q}}`, message, code)
	})
}

// Each misconfiguration, against a real HTTP server and the real eino-ext
// client, comes back saying what is wrong and which setting fixes it; the
// cause stays in the message and in the chain.
func TestExplainMisconfiguredEndpoint(t *testing.T) {
	t.Parallel()
	v1Only := http.NewServeMux() // a server that serves /v1/chat/completions only
	v1Only.Handle("/v1/chat/completions", jsonError(http.StatusTeapot, "", "unused"))
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name    string
		handler http.Handler // nil: closedURL, where nothing listens
		path    string       // appended to the server's URL for the base URL
		key     string
		want    string // with %s the server's URL
	}{
		{"base URL without /v1", v1Only, "", "sk-test",
			"the base URL %[1]s (OPENAI_BASE_URL) has no /v1: the server answered 404 Not Found for %[1]s/chat/completions, while OpenAI-compatible servers serve /v1/chat/completions; set OPENAI_BASE_URL to %[1]s/v1: "},
		{"base URL without /v1, trailing slash", v1Only, "/", "sk-test", "set OPENAI_BASE_URL to %[1]s/v1: "},
		{"unknown model", jsonError(http.StatusNotFound, "model_not_found", "The model `gpt-4o-mini` does not exist"), "/v1", "sk-test",
			`the server at %[1]s/v1 (OPENAI_BASE_URL) answered 404 Not Found: it may not serve a model named "gpt-4o-mini": `},
		{"no key", jsonError(http.StatusUnauthorized, "invalid_api_key", "You didn't provide an API key."), "/v1", "",
			"OPENAI_API_KEY is not set, and the server at %[1]s/v1 (OPENAI_BASE_URL) answered 401 Unauthorized: set OPENAI_API_KEY to your key: "},
		{"key refused", jsonError(http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided."), "/v1", "sk-wrong",
			"the server at %[1]s/v1 (OPENAI_BASE_URL) refused the key in OPENAI_API_KEY (401 Unauthorized): check it: "},
		{"nothing listens", nil, "/v1", "sk-test",
			"nothing listens at %[1]s/v1 (OPENAI_BASE_URL): start the server, or set OPENAI_BASE_URL to one that runs: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := closedURL
			if tc.handler != nil {
				srv := httptest.NewServer(tc.handler)
				t.Cleanup(srv.Close)
				base = srv.URL
			}
			ep := Endpoint{BaseURL: base + tc.path, APIKey: tc.key}
			cause := callEndpoint(t, ep)
			got := ep.Explain(cause)
			want := fmt.Sprintf(tc.want, base)
			if !strings.Contains(got.Error(), want) || !strings.HasSuffix(got.Error(), ": "+cause.Error()) {
				t.Errorf("Explain:\n%s\nwant it to say\n%s\nthen the cause", got, want)
			}
			if !errors.Is(got, cause) {
				t.Error("the cause is not in the chain")
			}
			if again := ep.Explain(fmt.Errorf("agent: %w", got)); strings.Count(again.Error(), want) != 1 {
				t.Errorf("explained twice: %s", again)
			}
		})
	}
}

// Errors that say nothing about the settings come back as they are; a host
// that does not resolve is named (synthetic: a test cannot count on DNS).
func TestExplainLeavesOtherErrorsAlone(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(jsonError(http.StatusInternalServerError, "", "boom"))
	t.Cleanup(srv.Close)
	ep := Endpoint{BaseURL: srv.URL + "/v1", APIKey: "k"}
	if cause := callEndpoint(t, ep); ep.Explain(cause) != cause {
		t.Errorf("a 500 got a hint: %v", ep.Explain(cause))
	}
	if ep.Explain(nil) != nil {
		t.Error("Explain(nil) is not nil")
	}
	dns := &url.Error{Op: "Post", URL: OpenAIBaseURL + "/chat/completions", Err: &net.DNSError{Err: "no such host", Name: "api.openai.com", IsNotFound: true}}
	got := Endpoint{APIKey: "k"}.Explain(dns).Error()
	want := `cannot resolve the host "api.openai.com" of https://api.openai.com/v1 (OpenAI's: OPENAI_BASE_URL is not set): set OPENAI_BASE_URL to an endpoint this machine can reach: `
	if !strings.HasPrefix(got, want) {
		t.Errorf("Explain(DNS failure) = %s\nwant it to start with %s", got, want)
	}
}

// The settings' names in the hints are the caller's when given, and a key
// riding in the base URL never reaches a hint.
func TestExplainNamesTheCallersSettings(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	u.User = url.User("sk-secretsecretsecret")
	ep := Endpoint{BaseURL: u.String(), APIKey: "k", BaseURLSetting: "summarizer.base_url"}
	got := ep.Explain(callEndpoint(t, ep)).Error()
	hint, _, _ := strings.Cut(got, ": error, status code")
	if !strings.Contains(hint, "set summarizer.base_url to ") || strings.Contains(hint, "sk-secret") {
		t.Errorf("hint %q: want the caller's setting named and no key", hint)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ep   Endpoint
		want string
	}{
		{Endpoint{}, "openaienv: no API key: OPENAI_API_KEY is not set, and with OPENAI_BASE_URL unset the endpoint is OpenAI's (https://api.openai.com/v1), which needs one: set OPENAI_API_KEY to your key, or OPENAI_BASE_URL to an OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama)"},
		{Endpoint{APIKey: "sk-x"}, ""},
		{Endpoint{BaseURL: "http://localhost:11434/v1"}, ""},
	}
	for _, tc := range tests {
		err := tc.ep.Check()
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%+v.Check() = %v, want %q", tc.ep, err, tc.want)
		}
		if tc.want != "" && !errors.Is(err, ErrNoAPIKey) {
			t.Errorf("%+v.Check() does not wrap ErrNoAPIKey", tc.ep)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvBaseURL: "http://h/v1", EnvAPIKey: "k", EnvModel: ""}
	ep := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if ep.BaseURL != "http://h/v1" || ep.APIKey != "k" || ep.Model != "" || ep.ModelOrDefault() != DefaultModel {
		t.Errorf("FromEnv = %+v", ep)
	}
}
