package einoint_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	einoint "github.com/einocompact/einocompact/integration/eino"
	"github.com/einocompact/einocompact/openaitest"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

// stuckTool returns a result of about 170 tokens naming the file it read, so
// every step grows the prompt by close to a tenth of a 2,000-token window.
type stuckTool struct{}

func (stuckTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "read_file",
		Desc: "reads a file",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"path": {Type: schema.String, Required: true},
		}),
	}, nil
}

func (stuckTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return "contents of " + args + ":\n" + strings.Repeat("func handler() error { return retry(store.Save) }\n", 13), nil
}

// countingModel counts the calls it passes on.
type countingModel struct {
	model.BaseChatModel
	calls atomic.Int32
}

func (m *countingModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.calls.Add(1)
	return m.BaseChatModel.Generate(ctx, in, opts...)
}

// sizeProbe records the size, by the hook's counter, of every prompt the
// agent is about to send: it runs after the compaction middleware.
type sizeProbe struct {
	*adk.BaseChatModelAgentMiddleware
	counter compaction.TokenCounter
	mu      sync.Mutex
	sizes   []int
}

func (p *sizeProbe) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	n, err := p.counter.Count(ctx, st.Messages, st.ToolInfos)
	if err != nil {
		return ctx, st, err
	}
	p.mu.Lock()
	p.sizes = append(p.sizes, n)
	p.mu.Unlock()
	return ctx, st, nil
}

// TestStuckCompactionMakesProgress is issue 13's stuck case, as a new user
// meets it: the ADK middleware, the offline extractive summarizer, a short
// earlier exchange, then a task of 14 tool steps in a 2,000-token window.
// The earlier exchange is too small for its summary to pay off; compaction
// must go on to the task's steps instead of stopping there, and no prompt
// may go out above the window.
func TestStuckCompactionMakesProgress(t *testing.T) {
	t.Parallel()
	const window, steps = 2000, 14
	ctx := context.Background()
	var calls atomic.Int32
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(*openaitest.Request) (*openaitest.Reply, error) {
		n := calls.Add(1)
		if n > steps {
			return openaitest.Text("fixed: the retry now wraps store.Save"), nil
		}
		return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", n), "read_file", fmt.Sprintf(`{"path":"internal/store/file%d.go"}`, n))), nil
	}))
	agentModel, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := &countingModel{BaseChatModel: ext}
	summaryTokens := 200
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel:                sum,
		ApproximateSummaryTokens: &summaryTokens,
		Logger:                   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []compaction.Report
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     comp,
		ContextWindow: window,
		Logger:        slog.New(slog.DiscardHandler),
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			mu.Lock()
			reports = append(reports, r)
			mu.Unlock()
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := einoint.NewHookMiddleware(hook, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	probe := &sizeProbe{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, counter: hook.Counter()}
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "coder",
		Description:   "fixes code",
		Instruction:   "You are a coding agent.",
		Model:         agentModel,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{stuckTool{}}}},
		Handlers:      []adk.ChatModelAgentMiddleware{mw, probe},
		MaxIterations: 40,
	})
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{
		schema.UserMessage("What happened so far?"),
		schema.AssistantMessage("You asked me to look at the store.\nNothing has been changed yet.", nil),
		schema.UserMessage("Fix the flaky retry in internal/store: read every file first."),
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag}).Run(ctx, in)
	var final string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Fatalf("run failed: %v", ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			final = ev.Output.MessageOutput.Message.Content
		}
	}
	if !strings.HasPrefix(final, "fixed") {
		t.Fatalf("final answer = %q, want the model's answer", final)
	}

	probe.mu.Lock()
	defer probe.mu.Unlock()
	if len(probe.sizes) != steps+1 {
		t.Fatalf("%d model calls, want %d", len(probe.sizes), steps+1)
	}
	for i, n := range probe.sizes {
		if n > window {
			t.Errorf("model call %d went out at %d tokens, above the %d-token window (all: %v)", i+1, n, window, probe.sizes)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	stepRounds, compacted := 0, 0
	for _, r := range reports {
		if r.Compacted {
			compacted++
		}
		for _, rd := range r.Rounds {
			if rd.Tier == compaction.TierCurrentTaskSteps && rd.Err == nil {
				stepRounds++
			}
		}
	}
	if stepRounds == 0 || compacted == 0 {
		t.Errorf("%d compactions applied, %d current-task rounds succeeded: the task's steps were never summarized", compacted, stepRounds)
	}
	// Every call to the summarizer must be part of a round that was worth
	// it: at most one refused round per triggered compaction.
	if got, limit := int(sum.calls.Load()), 2*len(reports); got > limit {
		t.Errorf("summarizer called %d times for %d triggered compactions", got, len(reports))
	}
}

// deadModel is a summarizer whose provider is down.
type deadModel struct{ model.BaseChatModel }

func (deadModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errors.New("summarizer endpoint: 503 service unavailable")
}

// TestDeadSummarizerBacksOff: with a summarizer that always fails and
// RaiseOnFailure false, the run goes on, and the hook does not ask the
// summarizer again at every model call once compaction has failed: it
// waits until the conversation grows by a tenth of the window.
func TestDeadSummarizerBacksOff(t *testing.T) {
	t.Parallel()
	const window, steps = 6000, 27 // each step adds about 200 tokens: a retry every third call
	ctx := context.Background()
	var calls atomic.Int32
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(*openaitest.Request) (*openaitest.Reply, error) {
		n := calls.Add(1)
		if n > steps {
			return openaitest.Text("fixed"), nil
		}
		return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", n), "read_file", fmt.Sprintf(`{"path":"f%d.go"}`, n))), nil
	}))
	agentModel, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sum := &countingModel{BaseChatModel: deadModel{}}
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sum, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var triggered, backedOff int
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: comp, ContextWindow: window, Logger: slog.New(slog.DiscardHandler),
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			mu.Lock()
			defer mu.Unlock()
			triggered++
			if r.BackedOff {
				backedOff++
			}
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := einoint.NewHookMiddleware(hook, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "fixes code", Instruction: "You are a coding agent.", Model: agentModel,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{stuckTool{}}}},
		Handlers:      []adk.ChatModelAgentMiddleware{mw},
		MaxIterations: 40,
	})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag}).Run(ctx, []*schema.Message{schema.UserMessage("fix it")})
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Fatalf("run failed although RaiseOnFailure is false: %v", ev.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	attempts := int(sum.calls.Load())
	if triggered < 4 || backedOff == 0 || attempts != triggered-backedOff || attempts > (triggered+1)/2 {
		t.Errorf("%d triggered calls, %d backed off, %d summarizer calls: want the failed compaction retried at most every second call",
			triggered, backedOff, attempts)
	}
}
