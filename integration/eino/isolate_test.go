package einoint

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

const secret = "SECRET SUMMARY TEXT"

// summarizingHook calls a summarizer model before every agent model call,
// with the ctx the hook was given, as a compaction hook would.
func summarizingHook(summarizer model.BaseChatModel) hooks.Func {
	return func(ctx context.Context, s *hooks.State) error {
		_, err := summarizer.Generate(ctx, []*schema.Message{schema.UserMessage("summarize")})
		return err
	}
}

// reactLeaks runs a react agent whose rewriter is built by install, and
// reports whether the agent's callback handler or its message future saw the
// summarizer's reply.
func reactLeaks(t *testing.T, install func(*react.AgentConfig, model.BaseChatModel)) (handlerSaw, futureSaw bool, summaries int) {
	t.Helper()
	ctx := context.Background()
	agentSrv := openaitest.Start(t, toolLoop(1))
	sumSrv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text(secret), nil })
	cfg := &react.AgentConfig{
		ToolCallingModel: chatModel(t, agentSrv),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool{}}},
	}
	install(cfg, chatModel(t, sumSrv))
	a, err := react.NewAgent(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &modelRecorder{}
	futOpt, fut := react.WithMessageFuture()
	if _, err := a.Generate(ctx, []*schema.Message{schema.UserMessage("go")},
		futOpt, agent.WithComposeOptions(compose.WithCallbacks(rec.handler()))); err != nil {
		t.Fatal(err)
	}
	var future []string
	iter := fut.GetMessages()
	for {
		m, ok, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		future = append(future, m.Content)
	}
	if !slices.Contains(future, "final answer") || !slices.Contains(future, "lookup(k1)=ok") || !slices.Contains(rec.all(), "final answer") {
		t.Fatalf("future %q / handler %q: the agent's own messages must be seen", future, rec.all())
	}
	has := func(ss []string) bool {
		return slices.ContainsFunc(ss, func(s string) bool { return strings.Contains(s, secret) })
	}
	return has(rec.all()), has(future), len(sumSrv.Requests())
}

func TestReactSummarizerIsolated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		install  func(*react.AgentConfig, model.BaseChatModel)
		wantLeak bool
	}{
		{
			// The control: a rewriter calling the summarizer with its own ctx
			// leaks. It shows the probe would catch a leak.
			name: "plain rewriter leaks",
			install: func(cfg *react.AgentConfig, sum model.BaseChatModel) {
				h := summarizingHook(sum)
				cfg.MessageRewriter = func(ctx context.Context, msgs []*schema.Message) []*schema.Message {
					_ = h(ctx, &hooks.State{})
					return msgs
				}
			},
			wantLeak: true,
		},
		{
			name: "InstallReact isolates",
			install: func(cfg *react.AgentConfig, sum model.BaseChatModel) {
				if err := InstallReact(context.Background(), cfg, summarizingHook(sum)); err != nil {
					panic(err)
				}
			},
		},
		{
			name: "IsolatedChatModel isolates a plain rewriter",
			install: func(cfg *react.AgentConfig, sum model.BaseChatModel) {
				h := summarizingHook(IsolatedChatModel(sum, "summarizer"))
				cfg.MessageRewriter = func(ctx context.Context, msgs []*schema.Message) []*schema.Message {
					_ = h(ctx, &hooks.State{})
					return msgs
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			handlerSaw, futureSaw, summaries := reactLeaks(t, tt.install)
			if summaries != 2 {
				t.Fatalf("summarizer called %d times, want 2 (once per model call)", summaries)
			}
			if handlerSaw != tt.wantLeak || futureSaw != tt.wantLeak {
				t.Errorf("handler saw summary: %v, future saw it: %v; want %v", handlerSaw, futureSaw, tt.wantLeak)
			}
		})
	}
}

func TestMiddlewareSummarizerIsolated(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		agentSrv := openaitest.Start(t, toolLoop(1))
		sumSrv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text(secret), nil })
		mw, err := NewHookMiddleware(summarizingHook(chatModel(t, sumSrv)), nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := &modelRecorder{}
		run := runADK(t, agentSrv, mw, streaming, []*schema.Message{schema.UserMessage("go")}, adk.WithCallbacks(rec.handler()))
		if run.err != nil {
			t.Fatal(run.err)
		}
		if n := len(sumSrv.Requests()); n != 2 {
			t.Fatalf("summarizer called %d times, want 2", n)
		}
		for _, m := range run.messages {
			if strings.Contains(m.Content, secret) {
				t.Errorf("streaming=%v: the summary reached the agent's events", streaming)
			}
		}
		for _, s := range rec.all() {
			if strings.Contains(s, secret) {
				t.Errorf("streaming=%v: the agent's callback handler saw the summary", streaming)
			}
		}
		// Otherwise the check above proves nothing.
		if !slices.Contains(rec.all(), "final answer") {
			t.Errorf("streaming=%v: the agent's callback handler missed the agent's own answer: %q", streaming, rec.all())
		}
		if len(run.messages) != 3 {
			t.Errorf("streaming=%v: %d events, want 3 (call, result, answer)", streaming, len(run.messages))
		}
	}
}
