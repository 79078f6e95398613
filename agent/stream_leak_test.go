package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"
)

// chunkyModel streams its answer in many chunks from memory, so a stream
// has many events to block on and no HTTP goroutines blur a leak check.
type chunkyModel struct{ chunks int }

func (m chunkyModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage(strings.Repeat("word ", m.chunks), nil), nil
}

func (m chunkyModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out := make([]*schema.Message, m.chunks)
	for i := range out {
		out[i] = schema.AssistantMessage("word ", nil)
	}
	return schema.StreamReaderFromArray(out), nil
}

func (m chunkyModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// TestStreamAbandonedThenCancelledLeaksNothing: readers that take two events
// and then drop the stream without Close must not keep their runs alive once
// ctx is cancelled. Not parallel, so goleak sees only this test's goroutines.
func TestStreamAbandonedThenCancelledLeaksNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	a, err := New(context.Background(), &Config{Model: chunkyModel{chunks: 50}, Tools: []tool.BaseTool{lookup}, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	const runs = 20
	cancels := make([]context.CancelFunc, 0, runs)
	for range runs {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		sr, err := a.Stream(ctx, []*schema.Message{schema.UserMessage("q")})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := sr.Recv(); err != nil {
				t.Fatal(err)
			}
		}
		// The reader is dropped here: no Close, no more Recv.
	}
	for _, cancel := range cancels {
		cancel()
	}
}

// TestStreamCancelledReaderGetsTheCause: a reader that keeps reading after
// cancelling gets an error wrapping context.Canceled, not a clean io.EOF
// that would pass for a finished stream.
func TestStreamCancelledReaderGetsTheCause(t *testing.T) {
	t.Parallel()
	a, err := New(context.Background(), &Config{Model: chunkyModel{chunks: 50}, Tools: []tool.BaseTool{lookup}, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sr, err := a.Stream(ctx, []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	if _, err := sr.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	for {
		ev, err := sr.Recv()
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("stream ended with %v, want an error wrapping context.Canceled", err)
			}
			return
		}
		if ev.Kind == EventDone {
			t.Fatal("a cancelled run reported done")
		}
	}
}
