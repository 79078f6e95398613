package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
)

// An in-process agent world for the agent-level fault and load tests: a
// model that calls a tool a set number of times per run and then answers,
// checking every prompt it is sent, and a tool with bulky results.

// arRun is one run's script, carried in its ctx because one model serves
// every run at once.
type arRun struct {
	steps int          // tool calls before the final answer
	calls atomic.Int32 // model calls so far
}

type arRunKey struct{}

func arWithRun(ctx context.Context, r *arRun) context.Context {
	return context.WithValue(ctx, arRunKey{}, r)
}

// arModel is the agent's own chat model.
type arModel struct {
	// window, when above 0, rejects a prompt larger than window fc4 tokens
	// as a provider rejects one over its context length.
	window   int
	ids      atomic.Int64
	mu       sync.Mutex
	problems []string
}

func (m *arModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := invToolPairing(in); err != nil {
		m.mu.Lock()
		m.problems = append(m.problems, err.Error())
		m.mu.Unlock()
		return nil, fmt.Errorf("400 bad request: %w", err)
	}
	if n := count(fc4, in...); m.window > 0 && n > m.window {
		m.mu.Lock()
		m.problems = append(m.problems, fmt.Sprintf("prompt of %d tokens over the %d-token window", n, m.window))
		m.mu.Unlock()
		return nil, fmt.Errorf("400 context_length_exceeded: %d tokens, window %d", n, m.window)
	}
	run, _ := ctx.Value(arRunKey{}).(*arRun)
	if run == nil {
		return nil, errors.New("arModel: no run script in ctx")
	}
	var reply *schema.Message
	if n := int(run.calls.Add(1)); n > run.steps {
		reply = schema.AssistantMessage("done", nil)
	} else {
		id := fmt.Sprintf("call-%d", m.ids.Add(1))
		reply = schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "fetch", Arguments: fmt.Sprintf(`{"page":%d}`, n)}}})
	}
	// Usage as a provider would report it, so the hook's provider path runs.
	prompt := count(fc4, in...)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: prompt, CompletionTokens: 5, TotalTokens: prompt + 5}}
	return reply, nil
}

func (m *arModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *arModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func (m *arModel) seenProblems() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.problems...)
}

// arTool returns a bulky page for any arguments.
type arTool struct{}

func (arTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "fetch", Desc: "fetches a page"}, nil
}

func (arTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return args + " " + strings.Repeat("page text ", 30), nil
}

// arAgent builds an agent on m with h registered before every model call.
func arAgent(t testing.TB, m *arModel, h hooks.Hook) *agent.Agent {
	t.Helper()
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, h); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(context.Background(), &agent.Config{Model: m, Tools: []tool.BaseTool{arTool{}}, Instruction: "be brief",
		Hooks: reg, MaxSteps: 40, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// arCheckResult checks a finished run: it answered, its conversation is
// well-formed, kept the system prompt and the task, and ends with the answer.
func arCheckResult(res *agent.Result, task string) error {
	if res.ExitReason != agent.ExitText || res.Message == nil || res.Message.Content != "done" {
		return fmt.Errorf("run ended with %q, last message %v", res.ExitReason, res.Message)
	}
	msgs := res.Messages
	if len(msgs) < 3 || msgs[0].Role != schema.System || msgs[0].Content != "be brief" || msgs[len(msgs)-1] != res.Message {
		return fmt.Errorf("conversation lost its frame: %s", Render(msgs, RenderOptions{}))
	}
	if l := invLandmarksOf(msgs); l.anchor == nil || l.anchor.Content != task {
		return fmt.Errorf("the task anchor is gone: %s", Render(msgs, RenderOptions{}))
	}
	return invToolPairing(msgs)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
