package agent_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/openaitest"
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
	sumModel, _ := summarizer.ChatModel(ctx)

	weather, _ := utils.InferTool("weather", "current weather in a city",
		func(_ context.Context, in struct{ City string }) (string, error) { return "3°C, rain", nil })

	// Compaction: summarize when the conversation reaches 70% of the window.
	compactor, _ := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sumModel})
	hook, _ := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: compactor, ContextWindow: 128_000})
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		panic(err)
	}

	a, err := agent.New(ctx, &agent.Config{
		Model:       chatModel,
		Tools:       []tool.BaseTool{weather},
		Instruction: "You are a helpful assistant.",
		Hooks:       reg,
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}

	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("Weather in Oslo?")})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message.Content, "|", res.ExitReason, "after", res.StepCount, "steps")

	// Next turn: send the returned conversation, not the original one.
	next := append(res.Messages, schema.UserMessage("What should I wear?"))
	res, err = a.Run(ctx, next)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Message.Content, "|", len(res.Messages), "messages")
	// Output:
	// It is 3°C in Oslo. | text after 2 steps
	// Bring a coat. | 7 messages
}
