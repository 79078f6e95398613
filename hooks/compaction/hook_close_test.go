package compaction

import (
	"context"
	"runtime"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// gateModel is a summarizer that says it started, then answers once
// released, or fails when its ctx ends first.
type gateModel struct {
	started chan struct{}
	release chan struct{}
}

func (m *gateModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	select {
	case m.started <- struct{}{}:
	default:
	}
	select {
	case <-m.release:
		return schema.AssistantMessage("the old question was answered", nil), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *gateModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// TestCloseDoesNotFailLiveRuns: Close while a run's synchronous compaction
// is in flight does not cancel it: the run, whose own ctx is fine, gets its
// compaction and no error (RaiseOnFailure false), and Close returns once it
// finished. A run after Close compacts inline.
func TestCloseDoesNotFailLiveRuns(t *testing.T) {
	t.Parallel()
	m := &gateModel{started: make(chan struct{}, 1), release: make(chan struct{})}
	comp, _, _ := scNew(t, m, scConfig{})
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 1000,
		TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		r   Report
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		r, err := h.Decide(context.Background(), &hooks.State{Messages: ftConversation(), StepCount: 3})
		ran <- outcome{r, err}
	}()
	<-m.started
	closed := make(chan error, 1)
	go func() { closed <- h.Close(context.Background()) }()
	for !h.e.Jobs.Closed() {
		runtime.Gosched()
	}
	close(m.release)
	got := <-ran
	if got.err != nil || !got.r.Compacted || got.r.Err != nil {
		t.Fatalf("the run in flight at Close: compacted=%v Report.Err=%v err=%v, want its compaction and no error", got.r.Compacted, got.r.Err, got.err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close = %v", err)
	}
	r, err := h.Decide(context.Background(), &hooks.State{Messages: ftConversation(), StepCount: 3})
	if err != nil || !r.Compacted {
		t.Fatalf("a run after Close: compacted=%v err=%v, want an inline compaction", r.Compacted, err)
	}
}
