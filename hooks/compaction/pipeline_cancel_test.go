package compaction

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestPipelineCancelledDuringLastStage: a ctx that ends while the last stage
// runs comes back as an error wrapping ctx.Err(), with no partial result,
// even when that stage declines instead of saying so.
func TestPipelineCancelledDuringLastStage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
		return msgs[1:], nil // some progress, still above the target
	})
	last := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		cancel()
		return nil, nil
	})
	p, err := NewPipeline(first, last)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Compact(ctx, ftConversation(), 1, fc1)
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("Compact = %d messages, %v; want nil and an error wrapping context.Canceled", len(out), err)
	}
}
