package compaction

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

var errCtxCounterAborted = errors.New("tokenizer request aborted")

// TestCancelledWhileCountingWrapsCtxErr: a counter that fails because the run
// was cancelled, with an error of its own that does not wrap ctx.Err(), still
// makes the compactor and the hook return an error wrapping ctx.Err(), for
// every count they make, whatever RaiseOnFailure says.
func TestCancelledWhileCountingWrapsCtxErr(t *testing.T) {
	t.Parallel()
	for _, raise := range []bool{false, true} {
		for k := 1; k <= 12; k++ {
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			counter := TokenCounterFunc(func(ctx context.Context, msgs []*schema.Message, tools []*schema.ToolInfo) (int, error) {
				calls++
				if calls == k {
					cancel()
					return 0, errCtxCounterAborted
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
			err = h.Run(ctx, &hooks.State{Messages: ftConversation()})
			cancel()
			if calls < k {
				break // past the last count
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("raise=%v, count %d aborted: error %v does not wrap context.Canceled", raise, k, err)
			}
		}
	}
}

// TestCompactCancelledWhileCountingWrapsCtxErr is the same for a caller of
// SummarizationCompactor.Compact without a hook.
func TestCompactCancelledWhileCountingWrapsCtxErr(t *testing.T) {
	t.Parallel()
	for k := 1; k <= 12; k++ {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		counter := TokenCounterFunc(func(ctx context.Context, msgs []*schema.Message, tools []*schema.ToolInfo) (int, error) {
			calls++
			if calls == k {
				cancel()
				return 0, errCtxCounterAborted
			}
			return fc1.Count(ctx, msgs, tools)
		})
		m := &ftModel{script: []ftReply{ftText("good summary"), ftText("second summary"), ftText("third")}}
		c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: new(1),
			Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Compact(ctx, ftConversation(), 2, counter)
		cancel()
		if calls < k {
			break
		}
		if !errors.Is(err, context.Canceled) || out != nil {
			t.Errorf("count %d aborted: Compact = %d messages, %v; want nil and an error wrapping context.Canceled", k, len(out), err)
		}
	}
}
