package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
)

func newAgent(t *testing.T, f *fixture) *agent.Agent {
	t.Helper()
	ctx := context.Background()
	cm, err := f.agentSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, f.hook); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, &agent.Config{
		Model:       cm,
		Tools:       []tool.BaseTool{searchTool{}},
		Instruction: "You are a research assistant.",
		Hooks:       reg,
		MaxSteps:    stepsPerTurn + 1,
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAgentCompactsAcrossTurns drives the agent through three user turns of
// twelve tool steps each, carrying the returned (compacted) conversation
// from one turn into the next.
func TestAgentCompactsAcrossTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := newAgent(t, f)
	ctx := context.Background()

	var history []*schema.Message
	for turn, question := range []string{"first question", "second question", "third question"} {
		in := append(append([]*schema.Message{}, history...), schema.UserMessage(question))
		before := len(f.agentSrv.Requests())
		snapshot := e2eSnapshot(t, in)
		res, err := a.Run(ctx, in)
		if err != nil {
			t.Fatalf("turn %d: %v", turn+1, err)
		}
		// The run compacted the carried history; the caller's messages,
		// and the messages they point to, must be as they were.
		if got := e2eSnapshot(t, in); got != snapshot {
			t.Errorf("turn %d: Run changed the caller's messages:\nbefore %s\nafter  %s", turn+1, snapshot, got)
		}
		if res.ExitReason != agent.ExitText || res.Message.Content != "answer to "+question {
			t.Fatalf("turn %d: exit %q with %q", turn+1, res.ExitReason, res.Message.Content)
		}
		if res.ToolCallCounts["search"] != stepsPerTurn {
			t.Errorf("turn %d: %d searches, want %d", turn+1, res.ToolCallCounts["search"], stepsPerTurn)
		}
		// In this turn, the system prompt was 1 message and the run added a
		// call and a result per step plus the answer.
		checkConversation(t, res.Messages, len(in)+1+2*stepsPerTurn+1)
		reqs := f.agentSrv.Requests()[before:]
		if len(reqs) != stepsPerTurn+1 {
			t.Errorf("turn %d: %d model calls, want %d", turn+1, len(reqs), stepsPerTurn+1)
		}
		first := reqs[0]
		if n := len(first.System()); n != 1 {
			t.Errorf("turn %d: %d system messages sent, want 1", turn+1, n)
		}
		if turn > 0 && !strings.Contains(first.PromptText(), summaryHead) {
			t.Errorf("turn %d: the carried history was not the compacted one:\n%s", turn+1, first.PromptText())
		}
		if turn > 0 && strings.Contains(first.PromptText(), "first question #1\"") {
			t.Errorf("turn %d: the first turn's first search was sent verbatim again", turn+1)
		}
		history = res.Messages
	}
	f.checkRun(t, 6)
}

// e2eSnapshot is msgs as JSON, deep: the slice and every message it points to.
func e2eSnapshot(t *testing.T, msgs []*schema.Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAgentStreamCompacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := newAgent(t, f)
	in := []*schema.Message{schema.UserMessage("streamed question")}
	sr, err := a.Stream(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var res *agent.Result
	var finalChunks []*schema.Message
	results := 0
	for {
		ev, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case agent.EventDone:
			res = ev.Result
		case agent.EventToolResult:
			results++
		case agent.EventMessageChunk:
			if ev.Step == stepsPerTurn+1 {
				finalChunks = append(finalChunks, ev.Message)
			}
		}
	}
	if res == nil {
		t.Fatal("no done event")
	}
	final, err := schema.ConcatMessages(finalChunks)
	if err != nil || final.Content != "answer to streamed question" || res.Message.Content != final.Content {
		t.Fatalf("streamed answer %q, result %q (%v)", final.Content, res.Message.Content, err)
	}
	if results != stepsPerTurn {
		t.Errorf("%d tool result events, want %d", results, stepsPerTurn)
	}
	if res.ContextTokens <= 0 || res.ContextTokens > window {
		t.Errorf("ContextTokens = %d, want the last call's reported size within the window", res.ContextTokens)
	}
	checkConversation(t, res.Messages, 2+2*stepsPerTurn+1)
	f.checkRun(t, 2)
}
