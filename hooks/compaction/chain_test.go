package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

var chQuiet = slog.New(slog.DiscardHandler)

// chHook builds a CompactionHook of case H16: FC1, window 2000, at 0.5, to
// 0.1. The chain is the user's own model-free fallback, pruning then the
// sliding window, as the reference has it; the hook's built-in fallback
// (not in the reference) would run the sliding window inside the pruning
// hook already, so it is off.
func chHook(t *testing.T, c Compactor) *CompactionHook {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{
		Compactor: c, ContextWindow: 2000, CompactAt: 0.5, CompactTo: 0.1, TokenCounter: fc1, Logger: chQuiet,
		DisableFallback: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPruningThenSlidingWindowChain is reference case H16: a pruning hook then a sliding-window hook at
// BeforeLLM in one registry. Every expected number is derived from FC1's
// arithmetic (one token per rendered character, one per separator).
func TestPruningThenSlidingWindowChain(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		user("task"), call("old"), result("old", rep("old result ", 400)),
		call("recent"), result("recent", rep("recent result ", 400)),
	}
	before := cloneAll(msgs)
	// Rendered sizes: [user] task = 11, a call = 35, the results 14+4400 and 14+5600.
	const u, a, tOld, tRecent = 11, 35, 4414, 5614
	head := u + a + tOld + a + 3 // the first four messages and their separators
	ctxTokens := head + 100
	pruned := len("[tool:search] ") + len(strings.ReplaceAll(defaultPruningPlaceholder, "{tool_name}", "search"))
	note := len("[user] ") + len(swDefaultNote(2))

	zero := 0
	pr, err := NewToolResultPruningCompactor(context.Background(), &ToolResultPruningConfig{MinTokens: &zero})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := NewSlidingWindowCompactor(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	prHook, swHook := chHook(t, pr), chHook(t, sw)

	// Step 1 alone, to check the intermediate numbers.
	state := &hooks.State{Messages: msgs, ContextTokens: ctxTokens, StepCount: 2}
	d, err := prHook.Decide(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	all := u + a + tOld + a + tRecent + 4
	wantOverhead := ctxTokens + tRecent - all // 99: the separator before the tail is not in the provider's number
	if d.Estimated != ctxTokens+tRecent || d.Overhead != wantOverhead || d.Target != 200-wantOverhead || !d.Compacted {
		t.Fatalf("pruning hook decision = %+v, want estimated %d overhead %d target %d", d, ctxTokens+tRecent, wantOverhead, 200-wantOverhead)
	}
	if len(state.Messages) != 5 || !IsStrategy(state.Messages[2], StrategyToolResultPruning) || state.Messages[4] != msgs[4] {
		t.Fatalf("after pruning: %q", Render(state.Messages, RenderOptions{}))
	}
	if f, _ := MarkerFields(state.Messages[2]); f["original_tokens"] != tOld {
		t.Errorf("original_tokens = %v, want %d", f["original_tokens"], tOld)
	}
	afterPrune := u + a + pruned + a + 3 + wantOverhead
	if state.ContextTokens != afterPrune {
		t.Errorf("context tokens after pruning = %d, want %d", state.ContextTokens, afterPrune)
	}

	// The chain, as an agent runs it.
	reg := hooks.NewRegistry()
	for _, h := range []*CompactionHook{prHook, swHook} {
		if err := reg.Register(hooks.BeforeLLM, h); err != nil {
			t.Fatal(err)
		}
	}
	state = &hooks.State{Messages: msgs, ContextTokens: ctxTokens, StepCount: 2}
	if err := reg.Run(context.Background(), hooks.BeforeLLM, state); err != nil {
		t.Fatal(err)
	}
	got := state.Messages
	if len(got) != 4 || got[0] != msgs[0] || got[2] != msgs[3] || got[3] != msgs[4] {
		t.Fatalf("after the chain: %q", Render(got, RenderOptions{}))
	}
	swCheckNote(t, got[1], swDefaultNote(2), 2, 3)
	// The window's hook recomputes its overhead from the pruned conversation
	// and loses one more separator.
	swOverhead := afterPrune + tRecent - (u + a + pruned + a + tRecent + 4)
	if swOverhead != wantOverhead-1 {
		t.Fatalf("arithmetic check: window overhead %d, want %d", swOverhead, wantOverhead-1)
	}
	if want := u + note + a + 2 + swOverhead; state.ContextTokens != want {
		t.Errorf("final context tokens = %d, want %d", state.ContextTokens, want)
	}
	if err := swPairing(got); err != nil {
		t.Error(err)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input changed")
	}
}

// TestChainNeverOrphans runs an agent-like loop (parallel calls, new user
// turns, long results) through chained hooks and a pipeline hook, checking
// after every compaction that calls and results stay paired.
func TestChainNeverOrphans(t *testing.T) {
	t.Parallel()
	pr, _ := NewToolResultPruningCompactor(context.Background(), nil)
	sw, _ := NewSlidingWindowCompactor(context.Background(), nil)
	pipe, _ := NewPipeline(pr, sw)
	setups := map[string][]Compactor{"two hooks": {pr, sw}, "pipeline": {pipe}, "window after window": {sw, sw}}
	for name, stages := range setups {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reg := hooks.NewRegistry()
			for _, c := range stages {
				h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 3000, TokenCounter: fc4, Logger: chQuiet})
				if err != nil {
					t.Fatal(err)
				}
				if err := reg.Register(hooks.BeforeLLM, h); err != nil {
					t.Fatal(err)
				}
			}
			state := &hooks.State{Messages: []*schema.Message{sys("rules"), user("first task")}}
			compacted := false
			for step := range 60 {
				if step%17 == 16 {
					state.Messages = append(state.Messages, asst("done"), user(fmt.Sprintf("task %d", step)))
				}
				ids := make([]string, 1+step%3)
				for k := range ids {
					ids[k] = fmt.Sprintf("s%dc%d", step, k)
				}
				state.Messages = append(state.Messages, call(ids...))
				for k, id := range ids {
					state.Messages = append(state.Messages, result(id, rep("data ", 40+60*((step+k)%5))))
				}
				if err := reg.Run(context.Background(), hooks.BeforeLLM, state); err != nil {
					t.Fatal(err)
				}
				compacted = compacted || slices.ContainsFunc(state.Messages, HasMarkerKey)
				if err := swPairing(state.Messages); err != nil {
					t.Fatalf("step %d: %v\n%s", step, err, Render(state.Messages, RenderOptions{ToolCallIDs: true}))
				}
				if state.Messages[0].Content != "rules" {
					t.Fatalf("step %d: system prompt lost", step)
				}
			}
			if !compacted {
				t.Fatal("the loop never compacted; the test proves nothing")
			}
		})
	}
}

// TestHookSlidingWindowOnFresh is reference case H13: FRESH with 800 reported, the default
// hook (window 1000, at 0.7, to 0.4, FC4) and a default sliding window.
func TestHookSlidingWindowOnFresh(t *testing.T) {
	t.Parallel()
	sw, _ := NewSlidingWindowCompactor(context.Background(), nil)
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: sw, ContextWindow: 1000, TokenCounter: fc4, Logger: chQuiet})
	if err != nil {
		t.Fatal(err)
	}
	msgs := fresh()
	state := &hooks.State{Messages: msgs, ContextTokens: 800, StepCount: 2}
	d, err := h.Decide(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	// 800 + FC4(T(c2)) = 845; the messages are 113, so the overhead is 732
	// and the target max(400-732, 0) = 0.
	if d.Estimated != 845 || d.Overhead != 732 || d.Target != 0 || !d.Compacted {
		t.Fatalf("decision %+v", d)
	}
	got := state.Messages
	if len(got) != 5 || got[0] != msgs[0] || got[1] != msgs[1] || got[3] != msgs[4] || got[4] != msgs[5] {
		t.Fatalf("got %q", Render(got, RenderOptions{}))
	}
	swCheckNote(t, got[2], swDefaultNote(2), 2, 4)
	if want := count(fc4, got[:4]...) + 732; state.ContextTokens != want || want <= 0 || want >= 800 {
		t.Errorf("context tokens = %d, want %d (below the 800 reported)", state.ContextTokens, want)
	}
}
