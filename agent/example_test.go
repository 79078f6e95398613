package agent_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// Example runs the agent with a compaction hook and carries the returned
// conversation into the next turn. The model and the summarizer are local
// fake OpenAI endpoints; in production, point the eino-ext client at a real
// provider instead.
func Example() {
	ctx := context.Background()

	// A scripted model: one tool call, then an answer per turn.
	llm := openaitest.New(openaitest.Script(
		openaitest.Call(openaitest.Fn("call_1", "weather", `{"city":"Oslo"}`)),
		openaitest.Text("It is 3°C in Oslo."),
		openaitest.Text("Bring a coat."),
	))
	defer llm.Close()
	summarizer := openaitest.New(func(*openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text("The user asked about the weather."), nil
	})
	defer summarizer.Close()
	chatModel, _ := llm.ChatModel(ctx)
	summarizerModel, _ := summarizer.ChatModel(ctx)

	weather, _ := utils.InferTool("weather", "current weather in a city",
		func(_ context.Context, in struct{ City string }) (string, error) { return "3°C, rain", nil })

	// docs/eino.md:hook:begin
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: summarizerModel, // any model.BaseChatModel; a small, cheap one is fine
	})
	if err != nil {
		panic(err)
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     compactor,
		ContextWindow: 128_000, // your agent model's window
		// CompactAt 0.7 and CompactTo 0.4 by default
	})
	if err != nil {
		panic(err)
	}
	// docs/eino.md:hook:end

	// docs/eino.md:agent:begin
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		panic(err)
	}
	a, err := agent.New(ctx, &agent.Config{
		Model:       chatModel, // model.ToolCallingChatModel
		Tools:       []tool.BaseTool{weather},
		Instruction: "You are a helpful assistant.",
		Hooks:       reg,
		MaxSteps:    20,
	})
	if err != nil {
		panic(err)
	}
	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("Weather in Oslo?")})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message.Content, "|", res.ExitReason, "after", res.StepCount, "steps")

	next := append(res.Messages, schema.UserMessage("What should I wear?"))
	res, err = a.Run(ctx, next) // the system message is not repeated: the history already starts with it
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message.Content, "|", len(res.Messages), "messages")
	// docs/eino.md:agent:end

	// Output:
	// It is 3°C in Oslo. | text after 2 steps
	// Bring a coat. | 7 messages
}
