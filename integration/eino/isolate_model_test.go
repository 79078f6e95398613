package einoint

import (
	"context"
	"io"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/openaitest"
)

// isolateCounter counts the model-end callbacks a handler receives, for both
// a blocking and a streamed call.
func isolateCounter(n *atomic.Int32) callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnEndFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			n.Add(1)
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			out.Close()
			n.Add(1)
			return ctx
		}).Build()
}

// isolateCall makes one call of m, blocking or streamed, and returns its text.
func isolateCall(ctx context.Context, m model.BaseChatModel, streamed bool) (string, error) {
	in := []*schema.Message{schema.UserMessage("summarize")}
	if !streamed {
		msg, err := m.Generate(ctx, in)
		if err != nil {
			return "", err
		}
		return msg.Content, nil
	}
	sr, err := m.Stream(ctx, in)
	if err != nil {
		return "", err
	}
	defer sr.Close()
	var chunks []*schema.Message
	for {
		c, err := sr.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		chunks = append(chunks, c)
	}
	msg, err := schema.ConcatMessages(chunks)
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

// IsolatedChatModel keeps the caller's ctx handlers from seeing the call, in
// Generate and in Stream, and reports to its own handlers instead.
func TestIsolatedChatModelHidesCallsFromCtxHandlers(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{false, true} {
		for _, isolated := range []bool{false, true} {
			srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text("a summary"), nil })
			raw := chatModel(t, srv)
			var agentSaw, ownSaw atomic.Int32
			ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "agent"}, isolateCounter(&agentSaw))
			var m model.BaseChatModel = raw
			if isolated {
				m = IsolatedChatModel(raw, "summarizer", isolateCounter(&ownSaw))
			}
			text, err := isolateCall(ctx, m, streamed)
			if err != nil || text != "a summary" {
				t.Fatalf("streamed=%v isolated=%v: %q, %v", streamed, isolated, text, err)
			}
			// Without the wrapper the agent's handler must see the call, or
			// the isolated case proves nothing.
			wantAgent, wantOwn := int32(1), int32(0)
			if isolated {
				wantAgent, wantOwn = 0, 1
			}
			if agentSaw.Load() != wantAgent || ownSaw.Load() != wantOwn {
				t.Errorf("streamed=%v isolated=%v: agent handler saw %d calls, own handler %d; want %d and %d",
					streamed, isolated, agentSaw.Load(), ownSaw.Load(), wantAgent, wantOwn)
			}
		}
	}
}
