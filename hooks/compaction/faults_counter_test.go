package compaction

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

var errFtCounter = errors.New("tokenizer service unavailable")

// TestFaultsCounterFailsAtEveryCall: a counter that fails at its k-th call,
// for every k a clean run reaches, surfaces as the hook's error (whatever
// RaiseOnFailure says) with State.Messages untouched. The one count allowed
// to fail quietly is the hook's advisory check of the fixed part, and then
// the outcome must be the clean run's. The compaction leaves the call above
// the 100-token window's fallback line, so with the fallback on, the
// model-free fallback runs after it; a count failing there abandons the
// fallback quietly (the call goes out as the compaction left it: the
// outcome of the clean run without the fallback).
func TestFaultsCounterFailsAtEveryCall(t *testing.T) {
	t.Parallel()
	run := func(raise, disable bool, failAt int64) (in []*schema.Message, st *hooks.State, calls int64, err error) {
		var n atomic.Int64
		counter := TokenCounterFunc(func(ctx context.Context, msgs []*schema.Message, tools []*schema.ToolInfo) (int, error) {
			if n.Add(1) == failAt {
				return 0, errFtCounter
			}
			return fc1.Count(ctx, msgs, tools)
		})
		m := &ftModel{script: []ftReply{ftText("good summary"), ftText("second summary"), ftText("third")}}
		c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: new(1),
			RaiseOnFailure: raise, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 100, CompactAt: 0.03, CompactTo: 0.02,
			TokenCounter: counter, Logger: discardLogger(), DisableFallback: disable})
		if err != nil {
			t.Fatal(err)
		}
		in = ftConversation()
		st = &hooks.State{Messages: in}
		err = h.Run(context.Background(), st)
		return in, st, n.Load(), err
	}
	render := func(st *hooks.State) string { return Render(st.Messages, RenderOptions{ToolCallIDs: true}) }
	for _, raise := range []bool{false, true} {
		_, without, _, err := run(raise, true, 0)
		if err != nil {
			t.Fatalf("raise=%v: clean run without the fallback failed: %v", raise, err)
		}
		for _, disable := range []bool{true, false} {
			in, clean, total, err := run(raise, disable, 0)
			if err != nil {
				t.Fatalf("raise=%v disable=%v: clean run failed: %v", raise, disable, err)
			}
			if slices.Equal(clean.Messages, in) {
				t.Fatalf("raise=%v disable=%v: with a working counter the hook should have compacted", raise, disable)
			}
			if !disable && render(clean) == render(without) {
				t.Fatalf("raise=%v: the fallback changed nothing; the test covers too little", raise)
			}
			if total < 6 {
				t.Fatalf("raise=%v disable=%v: a clean run counted only %d times; the test covers too little", raise, disable, total)
			}
			quiet, abandoned := 0, 0
			for k := int64(1); k <= total; k++ {
				in, st, _, err := run(raise, disable, k)
				if err == nil {
					switch render(st) {
					case render(clean):
						quiet++
					case render(without):
						abandoned++
					default:
						t.Fatalf("raise=%v disable=%v, failing count %d: no error, but the outcome differs from the clean run's", raise, disable, k)
					}
					continue
				}
				if !errors.Is(err, errFtCounter) {
					t.Fatalf("raise=%v disable=%v, failing count %d: error %v does not wrap the counter's", raise, disable, k, err)
				}
				if !slices.Equal(st.Messages, in) {
					t.Fatalf("raise=%v disable=%v, failing count %d: State.Messages changed although the hook failed", raise, disable, k)
				}
			}
			if quiet > 1 {
				t.Fatalf("raise=%v disable=%v: %d failed counts went unreported; only the advisory fixed-part check may", raise, disable, quiet)
			}
			if !disable && abandoned == 0 {
				t.Fatalf("raise=%v: no failing count abandoned the fallback; the test covers too little", raise)
			}
		}
	}
}

// TestFaultsCompactorPanicIsContained: a custom compactor that panics fails
// the hook point with hooks.ErrHookPanic and leaves the state as it was.
func TestFaultsCompactorPanicIsContained(t *testing.T) {
	t.Parallel()
	boom := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		panic("index out of range in a custom compactor")
	})
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: boom, ContextWindow: 100, CompactAt: 0.03, CompactTo: 0.02,
		TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, h); err != nil {
		t.Fatal(err)
	}
	in := ftConversation()
	st := &hooks.State{Messages: in}
	if err := reg.Run(context.Background(), hooks.BeforeLLM, st); !errors.Is(err, hooks.ErrHookPanic) {
		t.Fatalf("Run = %v, want hooks.ErrHookPanic", err)
	}
	if !slices.Equal(st.Messages, in) {
		t.Fatal("State.Messages changed although the compactor panicked")
	}
}
