package compactfx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// blockingSummarizer answers only when its ctx ends, and says when it was
// called.
type blockingSummarizer struct{ called chan struct{} }

func (b blockingSummarizer) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	close(b.called)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (b blockingSummarizer) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	_, err := b.Generate(ctx, in, opts...)
	return nil, err
}

// TestOnStopDrainsPreparedCompactions: with prepare_at 0.45, a call past
// it starts a compaction in the background; the app's OnStop cancels it
// and waits for its goroutine, so nothing outlives the app.
func TestOnStopDrainsPreparedCompactions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg := DefaultConfig()
	cfg.Compaction.ContextWindow = 2000
	cfg.Compaction.PrepareAt = 0.45
	cfg.Compaction.Summarize.ApproximateSummaryTokens = new(100)
	sum := blockingSummarizer{called: make(chan struct{})}
	var hook *compaction.CompactionHook
	app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Decorate(func(Summarizer) Summarizer { return sum }), fx.Populate(&hook))
	app.RequireStart()

	// Between prepare_at (900 tokens) and compact_at (1400), by the
	// default counter's four characters a token.
	msgs := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")}
	for i := range 6 {
		id := string(rune('a' + i))
		msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}}),
			schema.ToolMessage(strings.Repeat("result ", 90), id))
	}
	r, err := hook.Decide(context.Background(), &hooks.State{Messages: msgs})
	if err != nil || r.Triggered {
		t.Fatalf("Decide: triggered=%v err=%v estimated=%d; want a call between prepare_at and compact_at", r.Triggered, err, r.Estimated)
	}
	select {
	case <-sum.called: // the prepared compaction is waiting for the summarizer
	case <-time.After(10 * time.Second):
		t.Fatal("no compaction was prepared: the summarizer was never called")
	}
	app.RequireStop()
}
