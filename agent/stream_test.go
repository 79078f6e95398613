package agent

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"

	"github.com/einocompact/einocompact/openaitest"
)

// collect drains a Stream and returns its events.
func collect(t *testing.T, a *Agent, in []*schema.Message) ([]*Event, error) {
	t.Helper()
	sr, err := a.Stream(context.Background(), in)
	if err != nil {
		return nil, err
	}
	defer sr.Close()
	var evs []*Event
	for {
		ev, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	answer := "a streamed answer long enough for several chunks"
	a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}},
		openaitest.Call(call("c1", "x")).WithUsage(40, 4),
		openaitest.Text(answer).WithUsage(60, 12))
	evs, err := collect(t, a, []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	var step1, step2 []*schema.Message
	var results []*schema.Message
	for _, ev := range evs[:len(evs)-1] {
		switch {
		case ev.Kind == EventMessageChunk && ev.Step == 1:
			step1 = append(step1, ev.Message)
		case ev.Kind == EventMessageChunk && ev.Step == 2:
			step2 = append(step2, ev.Message)
		case ev.Kind == EventToolResult && ev.Step == 1:
			results = append(results, ev.Message)
		default:
			t.Errorf("unexpected event %+v", ev)
		}
	}
	if len(step2) < 3 {
		t.Errorf("final answer came in %d chunks, want it streamed", len(step2))
	}
	first, err := schema.ConcatMessages(step1)
	if err != nil || len(first.ToolCalls) != 1 {
		t.Fatalf("step 1 chunks concat to %+v, %v", first, err)
	}
	final, err := schema.ConcatMessages(step2)
	if err != nil || final.Content != answer {
		t.Fatalf("step 2 chunks concat to %q, %v", final.Content, err)
	}
	if len(results) != 1 || results[0].Content != "lookup(x)=ok" {
		t.Errorf("tool results = %v", results)
	}
	done := evs[len(evs)-1]
	if done.Kind != EventDone || done.Result == nil {
		t.Fatalf("last event = %+v, want done with a result", done)
	}
	res := done.Result
	if roles(res.Messages) != "UCTA" || res.Message.Content != answer || res.ContextTokens != 72 || res.StepCount != 2 {
		t.Errorf("result %s %q ctx=%d steps=%d", roles(res.Messages), res.Message.Content, res.ContextTokens, res.StepCount)
	}
	for _, r := range srv.Requests() {
		if !r.Stream || !r.IncludeUsage {
			t.Errorf("request not streamed with usage: stream=%v usage=%v", r.Stream, r.IncludeUsage)
		}
	}
}

func TestStreamModelErrorEndsStream(t *testing.T) {
	t.Parallel()
	a, _ := newTestAgent(t, Config{}, &openaitest.Reply{Status: 500, ErrorMessage: "boom"})
	evs, err := collect(t, a, []*schema.Message{schema.UserMessage("q")})
	if err == nil || len(evs) != 0 {
		t.Fatalf("events %v, err %v; want an error and no events", evs, err)
	}
}

// TestStreamCloseCancelsRun closes the reader after the first chunk; the run
// must stop instead of running tools and calling the model again.
func TestStreamCloseCancelsRun(t *testing.T) {
	t.Parallel()
	toolsRan := make(chan struct{}, 1)
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeTool, hooks.Func(func(context.Context, *hooks.State) error {
		toolsRan <- struct{}{}
		return nil
	}))
	a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg},
		openaitest.Call(call("c1", "a long key so the reply takes several chunks")), openaitest.Text("never"))
	sr, err := a.Stream(context.Background(), []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Recv(); err != nil {
		t.Fatal(err)
	}
	sr.Close()
	select {
	case <-toolsRan:
		t.Fatal("the run went on to its tools after the reader closed the stream")
	case <-time.After(300 * time.Millisecond):
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("model called %d times, want 1", n)
	}
}
