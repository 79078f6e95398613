package e2e

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	einoint "github.com/einocompact/einocompact/integration/eino"
)

func TestADKMiddlewareCompacts(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		f := newFixture(t)
		runADK(t, f, streaming)
		f.checkRun(t, 2)
	}
}

// runADK runs one ADK ChatModelAgent turn with f's hook as middleware.
func runADK(t *testing.T, f *fixture, streaming bool) {
	t.Helper()
	ctx := context.Background()
	cm, err := f.agentSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mw, err := einoint.NewHookMiddleware(f.hook, nil)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "researcher",
		Description:   "searches the archive",
		Instruction:   "You are a research assistant.",
		Model:         cm,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{searchTool{}}}},
		Handlers:      []adk.ChatModelAgentMiddleware{mw},
		MaxIterations: stepsPerTurn + 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag, EnableStreaming: streaming}).
		Run(ctx, []*schema.Message{schema.UserMessage("adk question")})
	last, _ := drainADK(t, iter)
	if last != "answer to adk question" {
		t.Errorf("streaming=%v: last message %q", streaming, last)
	}
}

func TestReactInstallCompacts(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		f := newFixture(t)
		runReact(t, f, streaming)
		f.checkRun(t, 2)
	}
}

// runReact runs one react agent turn with f's hook installed.
func runReact(t *testing.T, f *fixture, streaming bool) {
	t.Helper()
	ctx := context.Background()
	cm, err := f.agentSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &react.AgentConfig{
		ToolCallingModel: cm,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{searchTool{}}},
		MaxStep:          4*stepsPerTurn + 4,
	}
	if err := einoint.InstallReact(ctx, cfg, f.hook); err != nil {
		t.Fatal(err)
	}
	ra, err := react.NewAgent(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{schema.SystemMessage("You are a research assistant."), schema.UserMessage("react question")}
	var answer *schema.Message
	if streaming {
		sr, err := ra.Stream(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var chunks []*schema.Message
		for {
			c, err := sr.Recv()
			if err != nil {
				break
			}
			chunks = append(chunks, c)
		}
		if answer, err = schema.ConcatMessages(chunks); err != nil {
			t.Fatal(err)
		}
	} else if answer, err = ra.Generate(ctx, in); err != nil {
		t.Fatal(err)
	}
	if answer.Content != "answer to react question" {
		t.Errorf("streaming=%v: answer %q", streaming, answer.Content)
	}
}
