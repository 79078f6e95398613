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

// TestHookPairingGuardComparesByPosition: local models reuse tool-call ids
// (call_0 at every step). A fault the caller's conversation already had, an
// interrupted call "0", must not excuse a compactor that orphans the current
// step's call "0": faults are told apart by the message that carries them,
// not by the id string.
func TestHookPairingGuardComparesByPosition(t *testing.T) {
	t.Parallel()
	interrupted := call("0") // no result: the caller's own fault
	current := call("0")
	in := []*schema.Message{sys("rules"), user("start"), interrupted, user("go on"), current, result("0", rep("big output ", 60))}
	// clone copies a message the way a custom compactor that rebuilds its
	// output would: same content, a new pointer.
	clone := func(m *schema.Message) *schema.Message { c := *m; c.ToolCalls = slices.Clone(m.ToolCalls); return &c }
	tests := []struct {
		name    string
		reply   []*schema.Message
		wantErr error
	}{
		{"current call orphaned, messages kept", []*schema.Message{in[0], in[1], interrupted, in[3], current}, ErrBrokenToolPairing},
		{"current call orphaned, earlier fault summarised away", []*schema.Message{in[0], user("summary"), current}, ErrBrokenToolPairing},
		{"current call orphaned, messages copied", []*schema.Message{clone(in[0]), clone(in[1]), clone(interrupted), clone(in[3]), clone(current)}, ErrBrokenToolPairing},
		{"current call orphaned, tail copied", []*schema.Message{clone(in[0]), user("summary"), clone(current), asst("ok")}, ErrBrokenToolPairing},
		{"the caller's own fault kept, current pair kept", []*schema.Message{in[0], interrupted, current, result("0", "pruned")}, nil},
		{"the caller's own fault copied, current pair kept", []*schema.Message{clone(in[0]), clone(interrupted), clone(in[3]), clone(current), result("0", "pruned")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			decideWithReply(t, in, tc.reply, tc.wantErr)
		})
	}
}

// decideWithReply runs a hook whose compactor answers reply on input, and
// checks that it is refused with wantErr, state untouched, or (wantErr nil)
// applied.
func decideWithReply(t *testing.T, input, reply []*schema.Message, wantErr error) {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: &hookRecorder{reply: reply}, ContextWindow: 100,
		CompactAt: 0.03, CompactTo: 0.02, TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	st := &hooks.State{Messages: input}
	r, err := h.Decide(context.Background(), st)
	if wantErr != nil {
		if !errors.Is(err, wantErr) || !slices.Equal(st.Messages, input) {
			t.Fatalf("Decide = %v (messages changed: %v), want %v and the state as it was", err, !slices.Equal(st.Messages, input), wantErr)
		}
		return
	}
	if err != nil || !r.Compacted {
		t.Fatalf("Decide = %v, compacted %v; want the compaction applied", err, r.Compacted)
	}
}
