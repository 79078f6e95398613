package compaction

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestAppendedDuringCompactionDoesNotHideTheSaving: whether a compaction is
// smaller is judged on what the compactor was given and returned. A large
// message appended to the state meanwhile is kept after the result, but its
// size must not make a good compaction look useless.
func TestAppendedDuringCompactionDoesNotHideTheSaving(t *testing.T) {
	t.Parallel()
	in := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", rep("page ", 40)), call("c2"), result("c2", "x")}
	st := &hooks.State{Messages: slices.Clip(in)}
	// The follow-up is larger than the saving (the 200-character result
	// against a short summary), so the merged conversation is larger than
	// the snapshot although the compaction saved tokens.
	followUp := user(rep("a long follow-up question ", 20))
	compacted := []*schema.Message{in[0], in[1], NewSummaryMessage("pages fetched", 2), in[4], in[5]}
	comp := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		st.Messages = append(st.Messages, followUp)
		return compacted, nil
	})
	if count(fc1, compacted...) >= count(fc1, in...) || count(fc1, append(slices.Clone(compacted), followUp)...) < count(fc1, in...) {
		t.Fatal("the fixture no longer sets up a saving hidden by the append")
	}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2,
		TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Decide(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(compacted), followUp)
	if !r.Compacted || !slices.Equal(st.Messages, want) {
		t.Fatalf("compacted=%v, messages:\n%s\nwant the compacted conversation followed by the append", r.Compacted, Render(st.Messages, RenderOptions{}))
	}
}
