package einoint_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	einoint "github.com/einocompact/einocompact/integration/eino"
	"github.com/einocompact/einocompact/internal/openaitest"
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
	agentModel, sumModel, stop := fakeModels(ctx, "Hello from react.")
	defer stop()

	cfg := &react.AgentConfig{ToolCallingModel: agentModel}
	// Before react.NewAgent: installs the hook as MessageRewriter and guards
	// the model so the hook's errors become the run's errors.
	if err := einoint.InstallReact(ctx, cfg, newCompactionHook(ctx, sumModel)); err != nil {
		panic(err)
	}
	agent, err := react.NewAgent(ctx, cfg)
	if err != nil {
		panic(err)
	}
	msg, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Hi")})
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content)
	// Output: Hello from react.
}

// ExampleNewHookMiddleware adds compaction to an ADK ChatModelAgent.
func ExampleNewHookMiddleware() {
	ctx := context.Background()
	agentModel, sumModel, stop := fakeModels(ctx, "Hello from ADK.")
	defer stop()

	mw, err := einoint.NewHookMiddleware(newCompactionHook(ctx, sumModel), nil)
	if err != nil {
		panic(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "assistant",
		Description: "a helpful assistant",
		Instruction: "You are a helpful assistant.",
		Model:       agentModel,
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		panic(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Run(ctx, []*schema.Message{schema.UserMessage("Hi")})
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			panic(ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			msg, _ := ev.Output.MessageOutput.GetMessage()
			fmt.Println(msg.Content)
		}
	}
	// Output: Hello from ADK.
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
