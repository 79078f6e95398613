package compaction

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// TestSecretsAPIKeyNeverInLogsOrErrors drives the production OpenAI client
// with a canary key against a server that fails, and looks for the key in
// everything the hook and the compactor say: the returned error (with
// RaiseOnFailure) and every log line at debug level (without it).
func TestSecretsAPIKeyNeverInLogsOrErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c1e"
	bodies := map[string]struct {
		contentType, body string
	}{
		"json error":  {"application/json", `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`},
		"plain error": {"text/plain", "upstream connect error or disconnect/reset before headers"},
	}
	for name, resp := range bodies {
		for _, raise := range []bool{false, true} {
			var sawKey atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sawKey.Store(r.Header.Get("Authorization") == "Bearer "+key)
				w.Header().Set("Content-Type", resp.contentType)
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(resp.body))
			}))
			chat, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
				BaseURL: srv.URL + "/v1", APIKey: key, Model: "gpt-test", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			logs, runErr := secretsRun(t, chat, raise)
			srv.Close()

			if !sawKey.Load() {
				t.Fatalf("%s: the server never saw the key; the test proves nothing", name)
			}
			if (runErr != nil) != raise {
				t.Fatalf("%s, raise=%v: hook error %v", name, raise, runErr)
			}
			if runErr != nil && strings.Contains(runErr.Error(), key) {
				t.Errorf("%s: the API key is in the returned error: %v", name, runErr)
			}
			if strings.Contains(logs, key) || strings.Contains(logs, key[len(key)-12:]) {
				t.Errorf("%s: the API key is in the logs:\n%s", name, logs)
			}
			if !raise && !strings.Contains(logs, "500") {
				t.Errorf("%s: the failure was not logged with its cause:\n%s", name, logs)
			}
		}
	}
}

// secretsRun runs a summarizing hook over chat on a conversation that needs
// compaction, logging at debug level, and returns the log text and the
// hook's error.
func secretsRun(t *testing.T, chat model.BaseChatModel, raise bool) (string, error) {
	t.Helper()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
		ChatModel: chat, RaiseOnFailure: raise, ApproximateSummaryTokens: new(1), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 500, TokenCounter: fc1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*schema.Message{sys("rules"), user("old"), asst(rep("old answer ", 40)), user("task"), call("c1"), result("c1", "r")}
	_, runErr := hkRun(t, h, msgs)
	return logs.String(), runErr
}

// TestSecretsKeyInURLUserNeverInLogsOrErrors: a caller who hands the
// compactor a plain eino-ext client whose base URL carries the key as its
// user name (or in its query) must not find the key in the hook's error
// (RaiseOnFailure) nor in its logs: the HTTP client quotes the URL it failed
// on, and the compactor masks the user information and query of any URL in
// the summarizer's error.
func TestSecretsKeyInURLUserNeverInLogsOrErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-canary2b7e4d1a9c3f5e8b0d6a"
	for _, base := range []string{"http://" + key + "@127.0.0.1:1/v1", "http://127.0.0.1:1/v1?api-key=" + key} {
		for _, raise := range []bool{false, true} {
			chat, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{BaseURL: base, Model: "gpt-test"})
			if err != nil {
				t.Fatal(err)
			}
			logs, runErr := secretsRun(t, chat, raise)
			if (runErr != nil) != raise {
				t.Fatalf("%s, raise=%v: hook error %v", base, raise, runErr)
			}
			if runErr != nil && (strings.Contains(runErr.Error(), key) || !strings.Contains(runErr.Error(), "connection refused")) {
				t.Errorf("%s: the returned error has the key or lacks its cause: %v", base, runErr)
			}
			if strings.Contains(logs, key) || !strings.Contains(logs, "connection refused") {
				t.Errorf("%s: the logs have the key or lack the cause:\n%s", base, logs)
			}
		}
	}
}
