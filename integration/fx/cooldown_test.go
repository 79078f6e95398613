package compactfx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// A dead summarizer endpoint (HTTP 503 on every call) behind the module's
// failover chain: across N compactions of N conversations it is called for
// the first one's tries only, while summarizer.cool_down lasts, and the log
// has one Warn line, which names the offline summarizer that writes the
// summaries. With the key at 0 every compaction pays the tries and warns.
func TestDeadSummarizerEndpointCoolsDown(t *testing.T) {
	t.Parallel()
	const compactions, retries = 5, 2
	tests := []struct {
		name                string
		coolDown            string
		wantCalls, wantWarn int
	}{
		{"default cool-down", "", retries + 1, 1},
		{"cool-down off", "  cool_down: 0s\n", compactions * (retries + 1), compactions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dead := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
				return &openaitest.Reply{Status: 503, ErrorMessage: "overloaded"}, nil
			})
			file := fmt.Sprintf("compaction:\n  context_window: 2000\n  prepare_at: 0\nsummarizer:\n  base_url: %s\n  model: small\n  retries: %d\n  retry_base_delay: 1ms\n%s",
				dead.BaseURL(), retries, tc.coolDown)
			cfg, err := parse([]byte(file))
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			var hook *compaction.CompactionHook
			app := fx.New(fx.NopLogger, fx.Supply(log), Module(cfg), fx.Populate(&hook))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			for c := range compactions {
				st := &hooks.State{Messages: longConversation(c)}
				r, err := hook.Decide(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Compacted || r.Err != nil {
					t.Fatalf("compaction %d: compacted %v, err %v; the offline fallback should have written it", c, r.Compacted, r.Err)
				}
			}
			if got := len(dead.Requests()); got != tc.wantCalls {
				t.Errorf("the dead endpoint got %d calls in %d compactions, want %d", got, compactions, tc.wantCalls)
			}
			var warns []string
			for line := range strings.SplitSeq(logs.String(), "\n") {
				if strings.Contains(line, "level=WARN") {
					warns = append(warns, line)
				}
			}
			if len(warns) != tc.wantWarn {
				t.Errorf("%d Warn lines, want %d:\n%s", len(warns), tc.wantWarn, logs.String())
			}
			for _, w := range warns {
				if !strings.Contains(w, `\"small\" failed 3 tries in a row; \"offline extractive summarizer\" writes the summaries`) {
					t.Errorf("the Warn line does not say who failed and who writes instead: %s", w)
				}
			}
		})
	}
}

// longConversation is a tool-reading conversation over a 2000-token window;
// seed makes each one different, so no compaction is reused.
func longConversation(seed int) []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You read files."), schema.UserMessage(fmt.Sprintf("read every file of project %d", seed))}
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "read", Arguments: fmt.Sprintf(`{"path":"p%d/f%d"}`, seed, i)}}}),
			schema.ToolMessage(strings.Repeat(fmt.Sprintf("line %d of file content ", seed), 150), id, schema.WithToolName("read")))
	}
	return msgs
}
