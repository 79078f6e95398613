package compaction

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
)

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
			if (runErr != nil) != raise {
				t.Fatalf("%s, raise=%v: hook error %v", base, raise, runErr)
			}
			if runErr != nil && (strings.Contains(runErr.Error(), key) || !strings.Contains(runErr.Error(), "connection refused")) {
				t.Errorf("%s: the returned error has the key or lacks its cause: %v", base, runErr)
			}
			if strings.Contains(logs.String(), key) || !strings.Contains(logs.String(), "connection refused") {
				t.Errorf("%s: the logs have the key or lack the cause:\n%s", base, logs.String())
			}
		}
	}
}
