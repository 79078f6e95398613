package compactfx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// deadSummarizer fails every call, as a summarizer behind a refused
// connection does.
type deadSummarizer struct{}

var errSummarizerDown = errors.New("summarizer down")

func (deadSummarizer) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errSummarizerDown
}

func (deadSummarizer) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errSummarizerDown
}

// compaction.disable_fallback reaches the hook: left out, a failed
// compaction of a conversation over the window falls back to the
// model-free strategies; set, the conversation goes out as it was, and
// the cause is reported either way.
func TestDisableFallbackKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		line         string
		wantFallback bool
	}{
		{"left out", "", true},
		{"false", "  disable_fallback: false\n", true},
		{"true", "  disable_fallback: true\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 2000\n  prepare_at: 0\n" + tc.line + "summarizer:\n  provider: offline\n"
			cfg, err := parse([]byte(file))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var hook *compaction.CompactionHook
			app := fx.New(fx.NopLogger, Module(cfg), fx.Decorate(func(Summarizer) Summarizer { return deadSummarizer{} }), fx.Populate(&hook))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			msgs := []*schema.Message{schema.SystemMessage("You read files."), schema.UserMessage("read every file")}
			for i := range 6 {
				id := fmt.Sprintf("c%d", i)
				msgs = append(msgs,
					schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
						Function: schema.FunctionCall{Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)}}}),
					schema.ToolMessage(strings.Repeat("line of file content ", 150), id, schema.WithToolName("read")))
			}
			st := &hooks.State{Messages: msgs}
			r, err := hook.Decide(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Triggered || r.Estimated <= 2000 {
				t.Fatalf("triggered %v at %d tokens: the conversation must exceed the 2000-token window", r.Triggered, r.Estimated)
			}
			if !errors.Is(r.Err, errSummarizerDown) {
				t.Errorf("Report.Err = %v, want the summarizer's error", r.Err)
			}
			if got := r.Fallback != ""; got != tc.wantFallback {
				t.Errorf("Fallback %q, want one: %v", r.Fallback, tc.wantFallback)
			}
			if !tc.wantFallback && len(st.Messages) != len(msgs) {
				t.Errorf("with the fallback off the conversation changed: %d messages, want %d", len(st.Messages), len(msgs))
			}
		})
	}
}
