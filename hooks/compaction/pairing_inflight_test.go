package compaction

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestHookRefusesDroppingTheLastResults: a call is only in flight when it
// was in flight in what the compactor was given. A compactor that drops the
// results of the newest call leaves that call last, which must not pass for
// in flight: the provider would reject the next request.
func TestHookRefusesDroppingTheLastResults(t *testing.T) {
	t.Parallel()
	in := fresh() // ends with call c2 and its result
	tests := []struct {
		name    string
		input   []*schema.Message
		reply   []*schema.Message
		wantErr error
	}{
		{"results of the last call dropped", in, in[:len(in)-1], ErrBrokenToolPairing},
		{"a call in flight in the input stays in flight", append(slices.Clone(in[:4]), asst(rep("long answer ", 40)), call("c9")),
			[]*schema.Message{in[0], in[1], call("c9")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: &hookRecorder{reply: tc.reply}, ContextWindow: 100,
				CompactAt: 0.03, CompactTo: 0.02, TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			st := &hooks.State{Messages: tc.input}
			r, err := h.Decide(context.Background(), st)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !slices.Equal(st.Messages, tc.input) {
					t.Fatalf("Decide = %v (messages changed: %v), want %v and the state as it was", err, !slices.Equal(st.Messages, tc.input), tc.wantErr)
				}
				return
			}
			if err != nil || !r.Compacted {
				t.Fatalf("Decide = %v, compacted %v; want the compaction applied", err, r.Compacted)
			}
		})
	}
}
