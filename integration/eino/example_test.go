package einoint_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	einoint "github.com/einocompact/einocompact/integration/eino"
	"github.com/einocompact/einocompact/openaitest"
)

// newCompactionHook builds the hook the examples install: summaries written
// by sumModel once the conversation reaches 70% of a 128k window.
func newCompactionHook(ctx context.Context, sumModel model.BaseChatModel) *compaction.CompactionHook {
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sumModel})
	if err != nil {
		panic(err)
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: compactor, ContextWindow: 128_000})
	if err != nil {
		panic(err)
	}
	return hook
}

// fakeModels starts local fake endpoints for the agent and the summarizer.
func fakeModels(ctx context.Context, answer string) (agentModel, sumModel model.ToolCallingChatModel, stop func()) {
	llm := openaitest.New(openaitest.Script(openaitest.Text(answer)))
	sum := openaitest.New(openaitest.Script())
	a, _ := llm.ChatModel(ctx)
	s, _ := sum.ChatModel(ctx)
	return a, s, func() { llm.Close(); sum.Close() }
}

// ExampleInstallReact adds compaction to an existing react.AgentConfig.
func ExampleInstallReact() {
	ctx := context.Background()
	chatModel, sumModel, stop := fakeModels(ctx, "Hello from react.")
	defer stop()

	hook := newCompactionHook(ctx, sumModel)
	var tools []tool.BaseTool // your tools
	messages := []*schema.Message{schema.UserMessage("Hi")}

	// docs/eino.md:react:begin
	cfg := &react.AgentConfig{ToolCallingModel: chatModel, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}}
	// Before react.NewAgent: installs the hook as MessageRewriter and guards
	// the model so the hook's errors become the run's errors.
	if err := einoint.InstallReact(ctx, cfg, hook); err != nil {
		panic(err)
	}
	reactAgent, err := react.NewAgent(ctx, cfg)
	if err != nil {
		panic(err)
	}
	msg, err := reactAgent.Generate(ctx, messages)
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content)
	// docs/eino.md:react:end

	// Output: Hello from react.
}

// ExampleNewHookMiddleware adds compaction to an ADK ChatModelAgent with a
// tool. ADK returns events, not the compacted history, so an Observer on
// the hook is how the caller sees what compaction did.
func ExampleNewHookMiddleware() {
	ctx := context.Background()
	llm := openaitest.New(openaitest.WithPromptUsage(openaitest.Script(
		openaitest.Call(openaitest.Fn("call_1", "forecast", `{"city":"Oslo"}`)),
		openaitest.Call(openaitest.Fn("call_2", "forecast", `{"city":"Bergen"}`)),
		openaitest.Text("Take a coat to Bergen."),
	)))
	defer llm.Close()
	sum := openaitest.New(openaitest.WithPromptUsage(func(*openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text("## Work completed\n- read the Oslo forecast"), nil
	}))
	defer sum.Close()
	chatModel, _ := llm.ChatModel(ctx)
	summarizerModel, _ := sum.ChatModel(ctx)
	forecast, err := utils.InferTool("forecast", "Hourly forecast for a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return strings.Repeat(in.City+": 4°C, rain, wind 9 m/s\n", 250), nil
	})
	if err != nil {
		panic(err)
	}

	// docs/eino.md:adk:begin
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: summarizerModel})
	if err != nil {
		panic(err)
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     compactor,
		ContextWindow: 4_000, // tiny, to see it work
		// ADK gives back events, not the compacted history: the Observer
		// (or Eino callbacks, or integration/compactotel) shows what compaction did.
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			fmt.Printf("compaction: applied %v, %d summarizer round(s), saved tokens: %v\n",
				r.Compacted, len(r.Rounds), r.Saved() > 0)
		}),
	})
	if err != nil {
		panic(err)
	}
	mw, err := einoint.NewHookMiddleware(hook, nil) // or einoint.NewMiddleware(registry, logger)
	if err != nil {
		panic(err)
	}
	assistant, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "assistant",
		Description: "answers weather questions",
		Instruction: "You are a helpful assistant. Use the forecast tool.",
		Model:       chatModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{forecast}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		panic(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: assistant}).Run(ctx,
		[]*schema.Message{schema.UserMessage("Oslo or Bergen: where do I need a coat?")})
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			panic(ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
		}
	}
	// docs/eino.md:adk:end

	// Output:
	// compaction: applied true, 1 summarizer round(s), saved tokens: true
	// Take a coat to Bergen.
}

// ExampleIsolatedChatModel keeps a summarizer you call from your own code out
// of the agent's callbacks.
func ExampleIsolatedChatModel() {
	ctx := context.Background()
	srv := openaitest.New(openaitest.Script(openaitest.Text("a summary")))
	defer srv.Close()
	raw, _ := srv.ChatModel(ctx)

	summarizer := einoint.IsolatedChatModel(raw, "summarizer")
	msg, err := summarizer.Generate(ctx, []*schema.Message{schema.UserMessage("Summarize: ...")})
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content)
	// Output: a summary
}
