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
// for every k the hook and compactor reach, surfaces as the hook's error
// (whatever RaiseOnFailure says) with State.Messages untouched.
func TestFaultsCounterFailsAtEveryCall(t *testing.T) {
	t.Parallel()
	for _, raise := range []bool{false, true} {
		for k := int64(1); ; k++ {
			var calls atomic.Int64
			counter := TokenCounterFunc(func(ctx context.Context, msgs []*schema.Message, tools []*schema.ToolInfo) (int, error) {
				if calls.Add(1) == k {
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
				TokenCounter: counter, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			in := ftConversation()
			st := &hooks.State{Messages: in}
			err = h.Run(context.Background(), st)
			if err == nil {
				if k == 1 {
					t.Fatal("the hook never counted")
				}
				if slices.Equal(st.Messages, in) {
					t.Fatal("with a working counter the hook should have compacted")
				}
				break // k is past the last count: every call site was covered
			}
			if !errors.Is(err, errFtCounter) {
				t.Fatalf("raise=%v, failing count %d: error %v does not wrap the counter's", raise, k, err)
			}
			if !slices.Equal(st.Messages, in) {
				t.Fatalf("raise=%v, failing count %d: State.Messages changed although the hook failed", raise, k)
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
