package compactfx

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/integration/inspect"
)

func TestInspectKeysWireTheRecorder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inspect InspectConfig
	}{
		{"off by default", DefaultConfig().Inspect},
		{"enabled", InspectConfig{Enabled: true, MaxConversations: 3}},
		{"enabled with content", InspectConfig{Enabled: true, CaptureContent: true, MaxConversations: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Compaction.ContextWindow = 1000 // target 400, above the summarizer's 320-token floor
			cfg.Compaction.PrepareAt = 0
			cfg.Summarizer.Provider = ProviderOffline
			cfg.Inspect = tc.inspect
			var rec *inspect.Recorder
			var reg *hooks.Registry
			var hook *compaction.CompactionHook
			app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&rec, &reg, &hook))
			app.RequireStart()
			defer app.RequireStop()
			if (rec != nil) != tc.inspect.Enabled {
				t.Fatalf("recorder %v with inspect.enabled=%v", rec, tc.inspect.Enabled)
			}
			entries := reg.Hooks(hooks.BeforeLLM)
			if len(entries) != 1 {
				t.Fatalf("%d hooks at before_llm, want 1", len(entries))
			}
			w, wrapped := unwrapHook(entries[0]).(*inspect.Hook)
			if wrapped != tc.inspect.Enabled || (wrapped && w.Unwrap() != hook) {
				t.Fatalf("before_llm runs %T, want the CompactionHook wrapped by the recorder only when enabled", unwrapHook(entries[0]))
			}
			if rec == nil {
				return
			}
			if rec.CaptureContent() != tc.inspect.CaptureContent {
				t.Errorf("capture %v, want %v", rec.CaptureContent(), tc.inspect.CaptureContent)
			}
			ctx := inspect.WithConversation(context.Background(), "fx-run")
			state := &hooks.State{Messages: []*schema.Message{schema.UserMessage("hello")}}
			if err := reg.Run(ctx, hooks.BeforeLLM, state); err != nil {
				t.Fatal(err)
			}
			if got := rec.Conversations(); len(got) != 1 || got[0] != "fx-run" {
				t.Errorf("recorded conversations %v, want [fx-run]", got)
			}
		})
	}
}

func TestInspectMaxConversationsValidated(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Inspect.MaxConversations = 0
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "inspect.max_conversations") || !strings.Contains(err.Error(), "0") {
		t.Fatalf("Validate: %v, want an error naming inspect.max_conversations and 0", err)
	}
}
