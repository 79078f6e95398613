package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

func TestRunToolLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Instruction: "be brief"},
		openaitest.Call(call("c1", "x"), call("c2", "y")).WithUsage(50, 5),
		openaitest.Text("done").WithUsage(70, 2))
	in := []*schema.Message{schema.UserMessage("hi")}
	res, err := a.Run(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(res.Messages); got != "SUCTTA" {
		t.Errorf("conversation roles = %s, want SUCTTA", got)
	}
	if res.Message != res.Messages[len(res.Messages)-1] || res.Message.Content != "done" {
		t.Errorf("Message = %+v, want the final answer", res.Message)
	}
	if res.ExitReason != ExitText || res.StepCount != 2 {
		t.Errorf("exit %q after %d steps, want text after 2", res.ExitReason, res.StepCount)
	}
	if res.ToolCallCounts["lookup"] != 2 {
		t.Errorf("ToolCallCounts = %v, want lookup:2", res.ToolCallCounts)
	}
	if res.TokenUsage.PromptTokens != 120 || res.TokenUsage.CompletionTokens != 7 || res.TokenUsage.TotalTokens != 127 {
		t.Errorf("TokenUsage = %+v, want 120+7=127", res.TokenUsage)
	}
	if res.ContextTokens != 72 {
		t.Errorf("ContextTokens = %d, want 72 (the last call)", res.ContextTokens)
	}
	if got := res.Messages[3].Content; got != "lookup(x)=ok" || res.Messages[3].ToolCallID != "c1" {
		t.Errorf("first tool result = %q for %q", got, res.Messages[3].ToolCallID)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 1 || reqs[0].System()[0] != "be brief" {
		t.Fatalf("server saw %d requests; first = %s", len(reqs), reqs[0].PromptText())
	}
	if !strings.Contains(reqs[1].PromptText(), "tool: lookup(y)=ok") {
		t.Errorf("second prompt lacks the tool result:\n%s", reqs[1].PromptText())
	}
	if len(in) != 1 || in[0].Content != "hi" {
		t.Errorf("caller's messages changed: %v", in)
	}
}

func TestInstruction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		instruction string
		in          []*schema.Message
		wantSystem  []string
	}{
		{"prepended", "sys", []*schema.Message{schema.UserMessage("q")}, []string{"sys"}},
		{"kept when the conversation has one", "sys", []*schema.Message{schema.SystemMessage("old"), schema.UserMessage("q")}, []string{"old"}},
		{"none", "", []*schema.Message{schema.UserMessage("q")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, srv := newTestAgent(t, Config{Instruction: tt.instruction}, openaitest.Text("ok"))
			if _, err := a.Run(context.Background(), tt.in); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[0].System()
			if strings.Join(got, "|") != strings.Join(tt.wantSystem, "|") {
				t.Errorf("system messages = %q, want %q", got, tt.wantSystem)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, openaitest.Script())
	cm, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  *Config
		want string
	}{
		{"nil config", nil, "nil *Config"},
		{"no model", &Config{}, "Model is required"},
		{"negative steps", &Config{Model: cm, MaxSteps: -1}, "got -1"},
		{"nil tool", &Config{Model: cm, Tools: []tool.BaseTool{nil}}, "Tools[0] is nil"},
		{"duplicate tool", &Config{Model: cm, Tools: []tool.BaseTool{lookup, lookup}}, `both named "lookup"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(context.Background(), tt.cfg)
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New() error = %v, want ErrInvalidConfig mentioning %q", err, tt.want)
			}
		})
	}
}

// TestHookErrorAbortsRun covers every hook point: the error comes back
// wrapped, later points do not run, and the model is not called again.
func TestHookErrorAbortsRun(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("hook failed")
	tests := []struct {
		point        hooks.Point
		wantRequests int
	}{
		{hooks.BeforeRun, 0},
		{hooks.BeforeLLM, 0},
		{hooks.BeforeTool, 1},
		{hooks.AfterTool, 1},
		{hooks.OnExit, 2},
		{hooks.AfterRun, 2},
	}
	for _, tt := range tests {
		t.Run(string(tt.point), func(t *testing.T) {
			t.Parallel()
			reg := hooks.NewRegistry()
			mustRegister(t, reg, tt.point, hooks.Func(func(context.Context, *hooks.State) error { return sentinel }))
			afterRunRan := false
			if tt.point != hooks.AfterRun {
				mustRegister(t, reg, hooks.AfterRun, hooks.Func(func(context.Context, *hooks.State) error { afterRunRan = true; return nil }))
			}
			a, srv := newConversationalAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg})
			for _, streamed := range []bool{false, true} {
				var err error
				if streamed {
					_, err = collect(t, a, []*schema.Message{schema.UserMessage("q")})
				} else {
					_, err = a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
				}
				if !errors.Is(err, sentinel) {
					t.Fatalf("streamed=%v: error = %v, want it to wrap the hook's error", streamed, err)
				}
				if !strings.Contains(err.Error(), string(tt.point)) {
					t.Errorf("error %q does not name the point", err)
				}
				if afterRunRan {
					t.Errorf("after_run ran after a failure at %s", tt.point)
				}
				if streamed {
					break
				}
				if n := len(srv.Requests()); n != tt.wantRequests {
					t.Errorf("model called %d times, want %d", n, tt.wantRequests)
				}
			}
		})
	}
}

// TestHookPointsSeeState checks what each point sees, per reference §E.
func TestHookPointsSeeState(t *testing.T) {
	t.Parallel()
	type seen struct {
		point       hooks.Point
		roles       string
		step        int
		ctxTokens   int
		pending     int
		exit        string
		tools       int
		toolCounted int
	}
	var mu sync.Mutex
	var got []seen
	reg := hooks.NewRegistry()
	for _, p := range hooks.Points() {
		mustRegister(t, reg, p, hooks.Func(func(_ context.Context, s *hooks.State) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, seen{p, roles(s.Messages), s.StepCount, s.ContextTokens, len(s.PendingToolCalls), s.ExitReason, len(s.Tools), s.ToolCallCounts["lookup"]})
			return nil
		}))
	}
	a, _ := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg, Instruction: "sys"},
		openaitest.Call(call("c1", "x")).WithUsage(40, 4),
		openaitest.Text("done").WithUsage(60, 3))
	if _, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")}); err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{hooks.BeforeRun, "SU", 0, 0, 0, "", 1, 0},
		{hooks.BeforeLLM, "SU", 0, 0, 0, "", 1, 0},
		{hooks.BeforeTool, "SUC", 0, 44, 1, "", 1, 0},
		{hooks.AfterTool, "SUCT", 0, 44, 0, "", 1, 1},
		{hooks.BeforeLLM, "SUCT", 1, 44, 0, "", 1, 1},
		{hooks.OnExit, "SUCTA", 2, 63, 0, ExitText, 1, 1},
		{hooks.AfterRun, "SUCTA", 2, 63, 0, ExitText, 1, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("hook calls = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestBeforeLLMRewritePersists: what a before_llm hook puts in
// State.Messages is what the model receives, and later steps build on it.
func TestBeforeLLMRewritePersists(t *testing.T) {
	t.Parallel()
	summary := schema.UserMessage("<conversation_summary>\nearlier work\n</conversation_summary>")
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		if s.StepCount != 2 {
			return nil
		}
		// Drop the first step [C,T] in favour of a summary, as a compactor would.
		msgs := append([]*schema.Message{s.Messages[0], s.Messages[1], summary}, s.Messages[4:]...)
		s.Messages = msgs
		return nil
	}))
	a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg, Instruction: "sys"},
		openaitest.Call(call("c1", "x")),
		openaitest.Call(call("c2", "y")),
		openaitest.Text("done"))
	res, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	third := reqs[2].PromptText()
	if strings.Contains(third, "lookup(x)=ok") || !strings.Contains(third, "earlier work") {
		t.Errorf("third prompt was not the rewritten conversation:\n%s", third)
	}
	if got := roles(res.Messages); got != "SUUCTA" || res.Messages[2] != summary {
		t.Errorf("final conversation = %s, want the rewrite kept (SUUCTA)", got)
	}
}

func TestOnExitContinueRun(t *testing.T) {
	t.Parallel()
	expanded := false
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.OnExit, hooks.Func(func(_ context.Context, s *hooks.State) error {
		if !expanded {
			expanded = true
			s.Messages = append(s.Messages[:len(s.Messages):len(s.Messages)], schema.UserMessage("Please expand."))
			s.ContinueRun = true
		}
		return nil
	}))
	a, srv := newTestAgent(t, Config{Hooks: reg}, openaitest.Text("short"), openaitest.Text("long answer"))
	res, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(res.Messages); got != "UAUA" || res.Message.Content != "long answer" {
		t.Errorf("conversation %s ending %q, want UAUA ending with the long answer", got, res.Message.Content)
	}
	if res.StepCount != 2 || res.ExitReason != ExitText {
		t.Errorf("steps %d exit %q, want 2 and text", res.StepCount, res.ExitReason)
	}
	if !strings.Contains(srv.Requests()[1].PromptText(), "user: Please expand.") {
		t.Errorf("second prompt lacks the appended user message")
	}
}

func TestExitReasons(t *testing.T) {
	t.Parallel()
	loop := func() *openaitest.Reply { return openaitest.Call(call("c", "again")) }
	stopAt := func(p hooks.Point) func(*hooks.Registry) {
		return func(r *hooks.Registry) {
			_ = r.Register(p, hooks.Func(func(_ context.Context, s *hooks.State) error { s.StopRun = true; return nil }))
		}
	}
	tests := []struct {
		name         string
		maxSteps     int
		setup        func(*hooks.Registry)
		script       []*openaitest.Reply
		wantExit     string
		wantSteps    int
		wantRequests int
	}{
		{"max steps", 3, nil, []*openaitest.Reply{loop(), loop(), loop()}, ExitMaxSteps, 3, 3},
		{"stop at before_llm is immediate", 5, stopAt(hooks.BeforeLLM), nil, ExitStop, 0, 0},
		{"stop at after_tool waits for the next step", 5, stopAt(hooks.AfterTool), []*openaitest.Reply{loop()}, ExitStop, 1, 1},
		{"stop at before_tool on the last step loses to max steps", 1, stopAt(hooks.BeforeTool), []*openaitest.Reply{loop()}, ExitMaxSteps, 1, 1},
		{"text beats a stop set on the same step", 5, stopAt(hooks.OnExit), []*openaitest.Reply{openaitest.Text("bye")}, ExitText, 1, 1},
		{"continue on the last step becomes max steps", 1, func(r *hooks.Registry) {
			_ = r.Register(hooks.OnExit, hooks.Func(func(_ context.Context, s *hooks.State) error { s.ContinueRun = true; return nil }))
		}, []*openaitest.Reply{openaitest.Text("bye")}, ExitMaxSteps, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := hooks.NewRegistry()
			if tt.setup != nil {
				tt.setup(reg)
			}
			a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg, MaxSteps: tt.maxSteps}, tt.script...)
			res, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitReason != tt.wantExit || res.StepCount != tt.wantSteps {
				t.Errorf("exit %q after %d steps, want %q after %d", res.ExitReason, res.StepCount, tt.wantExit, tt.wantSteps)
			}
			if n := len(srv.Requests()); n != tt.wantRequests {
				t.Errorf("model called %d times, want %d", n, tt.wantRequests)
			}
		})
	}
}

// TestBeforeToolTrimsPending: a hook that drops a pending call must not
// leave that call unanswered in the conversation (the fake server would
// reject the next request), and only the kept call runs.
func TestBeforeToolTrimsPending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		keep      func([]schema.ToolCall) []schema.ToolCall
		wantRoles string
		wantRuns  int
	}{
		{"drop one", func(c []schema.ToolCall) []schema.ToolCall { return c[1:] }, "UCTA", 1},
		{"drop all", func([]schema.ToolCall) []schema.ToolCall { return nil }, "UAA", 0},
		{"keep all", func(c []schema.ToolCall) []schema.ToolCall { return c }, "UCTTA", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := hooks.NewRegistry()
			mustRegister(t, reg, hooks.BeforeTool, hooks.Func(func(_ context.Context, s *hooks.State) error {
				s.PendingToolCalls = tt.keep(s.PendingToolCalls)
				return nil
			}))
			a, srv := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg},
				openaitest.Call(call("c1", "x"), call("c2", "y")), openaitest.Text("done"))
			res, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
			if err != nil {
				t.Fatalf("Run: %v (rejected: %v)", err, srv.Rejected())
			}
			if got := roles(res.Messages); got != tt.wantRoles {
				t.Errorf("conversation = %s, want %s", got, tt.wantRoles)
			}
			if res.ToolCallCounts["lookup"] != tt.wantRuns || res.StepCount != 2 {
				t.Errorf("lookup ran %d times in %d steps, want %d in 2", res.ToolCallCounts["lookup"], res.StepCount, tt.wantRuns)
			}
		})
	}
}

func TestContextTokensFromUsage(t *testing.T) {
	t.Parallel()
	withUsage := func(m *schema.Message, p, c, total int) *schema.Message {
		m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: p, CompletionTokens: c, TotalTokens: total}}
		return m
	}
	summary := &schema.Message{Role: schema.User, Content: "<conversation_summary>x</conversation_summary>",
		Extra: map[string]any{"context_compaction": map[string]any{"strategy": "summarization", "summarized_messages": 2}}}
	tests := []struct {
		name      string
		history   []*schema.Message
		reply     *openaitest.Reply
		wantStart int // ContextTokens at before_run
		wantAfter int // ContextTokens at on_exit
	}{
		{"fresh conversation, usage reported", nil, openaitest.Text("a").WithUsage(30, 3), 0, 33},
		{"usage omitted means unknown", nil, openaitest.Text("a"), 0, 0},
		{"carried history with usage", []*schema.Message{schema.UserMessage("q0"), withUsage(schema.AssistantMessage("a0", nil), 20, 2, 22)}, openaitest.Text("a"), 22, 0},
		{"total only", []*schema.Message{schema.UserMessage("q0"), withUsage(schema.AssistantMessage("a0", nil), 0, 0, 25)}, openaitest.Text("a"), 25, 0},
		{"compacted after the last reply", []*schema.Message{schema.UserMessage("q0"), withUsage(schema.AssistantMessage("a0", nil), 20, 2, 22), summary}, openaitest.Text("a"), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var start, after int
			reg := hooks.NewRegistry()
			mustRegister(t, reg, hooks.BeforeRun, hooks.Func(func(_ context.Context, s *hooks.State) error { start = s.ContextTokens; return nil }))
			mustRegister(t, reg, hooks.OnExit, hooks.Func(func(_ context.Context, s *hooks.State) error { after = s.ContextTokens; return nil }))
			a, _ := newTestAgent(t, Config{Hooks: reg}, tt.reply)
			in := append(append([]*schema.Message{}, tt.history...), schema.UserMessage("q"))
			if _, err := a.Run(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if start != tt.wantStart || after != tt.wantAfter {
				t.Errorf("ContextTokens before_run=%d on_exit=%d, want %d and %d", start, after, tt.wantStart, tt.wantAfter)
			}
		})
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	reg := hooks.NewRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	mustRegister(t, reg, hooks.AfterTool, hooks.Func(func(context.Context, *hooks.State) error { cancel(); return nil }))
	a, _ := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg}, openaitest.Call(call("c1", "x")), openaitest.Text("done"))
	in := []*schema.Message{schema.UserMessage("q")}
	_, err := a.Run(ctx, in)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if len(in) != 1 {
		t.Errorf("caller's messages changed")
	}
}

// TestConcurrentRuns shares one agent and one registry between runs; the
// race detector checks no per-run state leaks into them.
func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		s.Values["calls"] = s.StepCount + 1
		return nil
	}))
	a, _ := newConversationalAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := strings.Repeat("k", i+1)
			res, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage(key)})
			if err != nil {
				t.Error(err)
				return
			}
			if res.Messages[2].Content != "lookup("+key+")=ok" || res.Values["calls"] != 2 {
				t.Errorf("run %d got %q, values %v", i, res.Messages[2].Content, res.Values)
			}
		})
	}
	wg.Wait()
}
