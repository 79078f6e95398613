package compaction

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestHookCancelledWhileCompacting: when the run's ctx ends while the
// compactor works, the hook returns an error wrapping ctx.Err() and leaves
// State.Messages alone, whether the compactor noticed (declining with
// (nil, nil)) or not (returning a result as if nothing happened).
func TestHookCancelledWhileCompacting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply func(in []*schema.Message) []*schema.Message
	}{
		{"compactor declines", func([]*schema.Message) []*schema.Message { return nil }},
		{"compactor ignores ctx", func(in []*schema.Message) []*schema.Message {
			return append([]*schema.Message{in[0], NewSummaryMessage("s", 2)}, in[3:]...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			comp := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				cancel() // the user gives up while compaction runs
				return tt.reply(msgs), nil
			})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 100, CompactAt: 0.03, CompactTo: 0.02,
				TokenCounter: fc1, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			in := ftConversation()
			st := &hooks.State{Messages: in}
			if err := h.Run(ctx, st); !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want an error wrapping context.Canceled", err)
			}
			if !slices.Equal(st.Messages, in) {
				t.Fatal("State.Messages changed although the run was cancelled")
			}
		})
	}
}
