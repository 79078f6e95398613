package einocompact_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/openaitest"
)

// The README's example, run against two local fake OpenAI endpoints: one
// plays the agent's model, the other the summarizer.
func Example_readme() {
	ctx := context.Background()
	slog.SetDefault(slog.New(slog.DiscardHandler))

	agentServer := openaitest.New(openaitest.Script(
		openaitest.Call(openaitest.Fn("call_1", "read_log", `{"day":"monday"}`)),
		openaitest.Call(openaitest.Fn("call_2", "read_log", `{"day":"tuesday"}`)),
		openaitest.Call(openaitest.Fn("call_3", "read_log", `{"day":"wednesday"}`)),
		openaitest.Text("The flaky test is TestUpload: it times out on Tuesdays."),
	))
	defer agentServer.Close()
	summaryServer := openaitest.New(func(*openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text("## Work completed\n- read the monday log: nothing unusual"), nil
	})
	defer summaryServer.Close()

	chatModel, _ := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: agentServer.BaseURL(), APIKey: "test", Model: "agent"})
	summarizer, _ := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: summaryServer.BaseURL(), APIKey: "test", Model: "summarizer"})
	readLog, _ := utils.InferTool("read_log", "Read one day of CI logs.", func(_ context.Context, in struct {
		Day string `json:"day"`
	}) (string, error) {
		return strings.Repeat("PASS TestUpload ("+in.Day+")\n", 200), nil
	})
	tools := []tool.BaseTool{readLog}

	// --- as in the README ---
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: summarizer, // any model.BaseChatModel writes the summaries
	})
	if err != nil {
		panic(err)
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     compactor,
		ContextWindow: 4_000, // tiny, to see it work: compact at 70% of it, down to 40%
	})
	if err != nil {
		panic(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		panic(err)
	}
	a, err := agent.New(ctx, &agent.Config{Model: chatModel, Tools: tools, Instruction: "You are a careful engineer.", Hooks: reg})
	if err != nil {
		panic(err)
	}
	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("Find the flaky test.")})
	if err != nil {
		panic(err)
	}
	// --- end ---

	fmt.Println(res.Message.Content)
	summaries := 0
	for _, m := range res.Messages {
		if compaction.IsStrategy(m, compaction.StrategySummarization) {
			summaries++
		}
	}
	fmt.Println("summaries in the returned conversation:", summaries)
	fmt.Println("first message:", res.Messages[0].Role)
	// Output:
	// The flaky test is TestUpload: it times out on Tuesdays.
	// summaries in the returned conversation: 1
	// first message: system
}
