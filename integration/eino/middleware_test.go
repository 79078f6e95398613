package einoint

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// adkRun is the outcome of one ADK run: the messages its events carried and
// the first error event.
type adkRun struct {
	messages []*schema.Message
	err      error
}

func runADK(t *testing.T, srv *openaitest.Server, mw adk.ChatModelAgentMiddleware, streaming bool, in []*schema.Message, opts ...adk.AgentRunOption) adkRun {
	t.Helper()
	ctx := context.Background()
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "tester",
		Description:   "test agent",
		Instruction:   "sys",
		Model:         chatModel(t, srv),
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool{}}}},
		Handlers:      []adk.ChatModelAgentMiddleware{mw},
		MaxIterations: 40,
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag, EnableStreaming: streaming})
	iter := runner.Run(ctx, in, opts...)
	var out adkRun
	for {
		ev, ok := iter.Next()
		if !ok {
			return out
		}
		if ev.Err != nil {
			if out.err == nil {
				out.err = ev.Err
			}
			continue
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		mv := ev.Output.MessageOutput
		if !mv.IsStreaming {
			out.messages = append(out.messages, mv.Message)
			continue
		}
		var chunks []*schema.Message
		for {
			c, err := mv.MessageStream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				out.err = err
				break
			}
			chunks = append(chunks, c)
		}
		if m, err := schema.ConcatMessages(chunks); err == nil {
			out.messages = append(out.messages, m)
		}
	}
}

func TestMiddlewareRunsEveryPoint(t *testing.T) {
	t.Parallel()
	type seen struct {
		point   hooks.Point
		msgs    int
		step    int
		pending int
	}
	var mu sync.Mutex
	var got []seen
	reg := hooks.NewRegistry()
	for _, p := range []hooks.Point{hooks.BeforeRun, hooks.BeforeLLM, hooks.BeforeTool, hooks.AfterTool, hooks.AfterRun} {
		if err := reg.Register(p, hooks.Func(func(_ context.Context, s *hooks.State) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, seen{p, len(s.Messages), s.StepCount, len(s.PendingToolCalls)})
			if p == hooks.AfterTool {
				// Results may be rewritten, e.g. pruned.
				s.Messages = []*schema.Message{schema.ToolMessage("pruned", s.Messages[0].ToolCallID)}
			}
			return nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	mw, err := NewMiddleware(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaitest.Start(t, toolLoop(1))
	run := runADK(t, srv, mw, false, []*schema.Message{schema.UserMessage("go")})
	if run.err != nil {
		t.Fatal(run.err)
	}
	want := []seen{
		{hooks.BeforeRun, 2, 0, 0},  // [S, U]
		{hooks.BeforeLLM, 2, 0, 0},  //
		{hooks.BeforeTool, 0, 0, 1}, // the one pending call
		{hooks.AfterTool, 1, 0, 0},  // its result
		{hooks.BeforeLLM, 4, 1, 0},  // [S, U, C, T]
		{hooks.AfterRun, 5, 2, 0},   // final answer included
	}
	if len(got) != len(want) {
		t.Fatalf("hook calls %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if p := srv.Requests()[1].PromptText(); !strings.Contains(p, "tool: pruned") {
		t.Errorf("after_tool rewrite of the result did not reach the model:\n%s", p)
	}
}

func TestMiddlewareRewritePersists(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		var once sync.Once
		hook := hooks.Func(func(_ context.Context, s *hooks.State) error {
			if s.StepCount == 2 {
				once.Do(func() {
					// [S, U, C1, T1, C2, T2] -> [S, U, SUM, C2, T2]
					sum := schema.UserMessage("<conversation_summary>\nlooked up k1\n</conversation_summary>")
					s.Messages = append([]*schema.Message{s.Messages[0], s.Messages[1], sum}, s.Messages[4:]...)
				})
			}
			return nil
		})
		mw, err := NewHookMiddleware(hook, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := openaitest.Start(t, toolLoop(3))
		run := runADK(t, srv, mw, streaming, []*schema.Message{schema.UserMessage("go")})
		if run.err != nil {
			t.Fatalf("streaming=%v: %v", streaming, run.err)
		}
		if last := run.messages[len(run.messages)-1]; last.Content != "final answer" {
			t.Errorf("streaming=%v: last event %q", streaming, last.Content)
		}
		// The loop answers after 3 results in the prompt; one was compacted away.
		reqs := srv.Requests()
		if len(reqs) != 5 {
			t.Fatalf("streaming=%v: %d requests, want 5", streaming, len(reqs))
		}
		for i, r := range reqs[2:] {
			if p := r.PromptText(); strings.Contains(p, "lookup(k1)=ok") || !strings.Contains(p, "looked up k1") {
				t.Errorf("streaming=%v: prompt %d not compacted:\n%s", streaming, i+3, p)
			}
		}
	}
}

func TestMiddlewareErrors(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("hook failed")
	fail := hooks.Func(func(context.Context, *hooks.State) error { return sentinel })
	tests := []struct {
		point   hooks.Point
		hook    hooks.Hook
		wantIs  error
		wantReq int
	}{
		{hooks.BeforeRun, fail, sentinel, 0},
		{hooks.BeforeLLM, fail, sentinel, 0},
		{hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error { s.StopRun = true; return nil }), ErrStopped, 0},
		{hooks.BeforeTool, fail, sentinel, 1},
		{hooks.AfterTool, fail, sentinel, 1},
		{hooks.AfterRun, fail, sentinel, 2},
	}
	for _, tt := range tests {
		t.Run(string(tt.point), func(t *testing.T) {
			t.Parallel()
			reg := hooks.NewRegistry()
			if err := reg.Register(tt.point, tt.hook); err != nil {
				t.Fatal(err)
			}
			mw, err := NewMiddleware(reg, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := openaitest.Start(t, toolLoop(1))
			run := runADK(t, srv, mw, false, []*schema.Message{schema.UserMessage("go")})
			if !errors.Is(run.err, tt.wantIs) {
				t.Fatalf("run error = %v, want errors.Is %v", run.err, tt.wantIs)
			}
			if n := len(srv.Requests()); n != tt.wantReq {
				t.Errorf("model called %d times, want %d", n, tt.wantReq)
			}
		})
	}
}

func TestMiddlewareSkipsClearedToolCall(t *testing.T) {
	t.Parallel()
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeTool, hooks.Func(func(_ context.Context, s *hooks.State) error {
		s.PendingToolCalls = nil
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	mw, err := NewMiddleware(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaitest.Start(t, toolLoop(1))
	if run := runADK(t, srv, mw, false, []*schema.Message{schema.UserMessage("go")}); run.err != nil {
		t.Fatal(run.err)
	}
	p := srv.Requests()[1].PromptText()
	if !strings.Contains(p, "tool: "+ErrSkippedByHook) || strings.Contains(p, "=ok") {
		t.Errorf("skipped call was not answered with the notice:\n%s", p)
	}
}

func TestNewMiddlewareValidates(t *testing.T) {
	t.Parallel()
	if _, err := NewMiddleware(nil, nil); err == nil {
		t.Error("NewMiddleware(nil) succeeded")
	}
	if _, err := NewHookMiddleware(nil, nil); err == nil {
		t.Error("NewHookMiddleware(nil) succeeded")
	}
	if _, err := NewHookMiddleware(afterRunOnly{}, nil); err == nil || !strings.Contains(err.Error(), "before_llm") {
		t.Errorf("NewHookMiddleware(after_run-only hook) = %v, want an error naming before_llm", err)
	}
}

// TestMiddlewareContextTokens: usage from the newest reply is trusted; after
// the middleware compacted, a retained reply's usage is not.
func TestMiddlewareContextTokens(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []int
	hook := hooks.Func(func(_ context.Context, s *hooks.State) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s.ContextTokens)
		if len(seen) == 2 {
			// Drop the user message but keep the reply and its result: the
			// reply's usage now describes a prompt that no longer exists.
			s.Messages = append([]*schema.Message{s.Messages[0]}, s.Messages[2:]...)
		}
		return nil
	})
	mw, err := NewHookMiddleware(hook, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two BeforeModelRewriteState calls see the same retained reply only
	// when no model call happened between them (a retry, another
	// middleware); probe provokes that inside a real run, where run-local
	// storage exists.
	state := &adk.ChatModelAgentState{Messages: []*schema.Message{
		schema.SystemMessage("sys"), schema.UserMessage("q"),
		{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "lookup", Arguments: "{}"}}},
			ResponseMeta: &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 90, CompletionTokens: 10}}},
		schema.ToolMessage("r", "c1"),
	}}
	srv := openaitest.Start(t, toolLoop(1))
	ctx := context.Background()
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "ctx", Description: "d", Model: chatModel(t, srv),
		Handlers: []adk.ChatModelAgentMiddleware{&probe{mw: mw, state: state}},
	})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag}).Run(ctx, []*schema.Message{schema.UserMessage("q")})
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Fatal(ev.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 || seen[1] != 100 || seen[2] != 0 {
		t.Errorf("ContextTokens seen = %v, want [_, 100, 0, ...]: trusted before compaction, not after", seen)
	}
}

// probe calls the middleware twice more on a fixed state inside a real run,
// before the real call, so run-local storage is available.
type probe struct {
	*adk.BaseChatModelAgentMiddleware
	mw    *Middleware
	state *adk.ChatModelAgentState
	done  bool
}

func (p *probe) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if !p.done {
		p.done = true
		ctx, _, err := p.mw.BeforeModelRewriteState(ctx, st, mc) // step 0
		if err != nil {
			return ctx, st, err
		}
		_, compacted, err := p.mw.BeforeModelRewriteState(ctx, p.state, mc) // trusted, then compacts
		if err != nil {
			return ctx, st, err
		}
		if _, _, err := p.mw.BeforeModelRewriteState(ctx, compacted, mc); err != nil { // same reply, stale
			return ctx, st, err
		}
	}
	return ctx, st, nil
}
