package compactfx

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// TestSecretsKeyInEndpointURLNeverLeaks puts a canary API key in every part
// of the summarizer's base URL that can carry one, makes the real eino-ext
// client fail on it (a timeout, a refused connection, an unknown host), and
// runs a real agent whose compaction needs that summarizer. The key must not
// appear in the error agent.Run returns (raise_on_failure) nor in any log
// line at debug level (without it), and the failure must still show with its
// cause.
func TestSecretsKeyInEndpointURLNeverLeaks(t *testing.T) {
	t.Parallel()
	const key = "sk-canary0f3a9c1e5b2d4f6a8c0e"
	// slow answers only once the test is over, so the summarizer's client
	// timeout always ends its calls first, however slow the machine.
	release := make(chan struct{})
	slow := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
		<-release
		return openaitest.Text("too late"), nil
	})
	t.Cleanup(func() { close(release) }) // runs before Start's Close, which waits for the handlers
	hostport := strings.TrimSuffix(strings.TrimPrefix(slow.BaseURL(), "http://"), "/v1")
	// The client's timeout is short only where the cause is the timeout
	// (slow never answers). Where it is a failed dial, a short one could
	// win the race on a loaded machine and change the cause.
	const short, long = 100 * time.Millisecond, 30 * time.Second
	tests := []struct {
		name, base, cause string
		timeout           time.Duration
	}{
		{"key as the user name", "http://" + key + "@" + hostport + "/v1", "Client.Timeout", short},
		{"key as the password", "http://user:" + key + "@" + hostport + "/v1", "Client.Timeout", short},
		{"key in the path", "http://" + hostport + "/" + key + "/v1", "Client.Timeout", short},
		{"key in the host", "http://" + key + ".invalid/v1", "dial tcp", long},
		{"key in the query", "http://127.0.0.1:1/v1?api-key=" + key, "connection refused", long},
	}
	for _, tc := range tests {
		for _, raise := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: ", raise", false: ", log"}[raise], func(t *testing.T) {
				t.Parallel()
				agentSrv := openaitest.Start(t, openaitest.Script(openaitest.Text("all done")))
				chat, err := agentSrv.ChatModel(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				cfg := DefaultConfig()
				cfg.Compaction.ContextWindow = 2000
				cfg.Compaction.Summarize.RaiseOnFailure = raise
				cfg.Compaction.Summarize.ApproximateSummaryTokens = new(100)
				// Without raise, the endpoint sits behind the failover chain,
				// whose own warnings quote the error too.
				retries := map[bool]int{true: 0, false: 1}[raise]
				cfg.Summarizer = SummarizerConfig{Provider: ProviderOpenAI, BaseURL: tc.base, Model: "summarizer", Timeout: Duration(tc.timeout),
					Retries: retries, RetryBaseDelay: Duration(time.Millisecond), RetryMaxDelay: Duration(time.Millisecond)}
				var logs bytes.Buffer
				log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				var reg *hooks.Registry
				fxtest.New(t, fx.NopLogger, fx.Supply(log), Module(cfg), fx.Populate(&reg)).RequireStart()
				a, err := agent.New(context.Background(), &agent.Config{Model: chat, Hooks: reg, Logger: log})
				if err != nil {
					t.Fatal(err)
				}
				history := []*schema.Message{schema.UserMessage("read the logs"),
					schema.AssistantMessage(strings.Repeat("the logs say the export job retried ", 200), nil),
					schema.UserMessage("now fix it")}
				_, runErr := a.Run(context.Background(), history)
				if raise {
					if runErr == nil || !strings.Contains(runErr.Error(), tc.cause) {
						t.Fatalf("agent.Run = %v, want the summarizer's failure (%s)", runErr, tc.cause)
					}
					if strings.Contains(runErr.Error(), key) {
						t.Errorf("the key is in the error agent.Run returned: %v", runErr)
					}
					if tc.cause == "Client.Timeout" && !errors.Is(runErr, context.DeadlineExceeded) {
						t.Errorf("redacting lost the error's identity: %v is not context.DeadlineExceeded", runErr)
					}
				} else {
					if runErr != nil {
						t.Fatalf("agent.Run = %v, want the run to continue", runErr)
					}
					if !strings.Contains(logs.String(), tc.cause) {
						t.Errorf("the failure is not logged with its cause %q:\n%s", tc.cause, logs.String())
					}
				}
				if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), key[len(key)-12:]) {
					t.Errorf("the key is in the logs:\n%s", logs.String())
				}
			})
		}
	}
}
