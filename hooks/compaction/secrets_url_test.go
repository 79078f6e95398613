package compaction

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
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
