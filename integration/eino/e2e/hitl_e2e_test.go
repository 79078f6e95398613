package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	einoint "github.com/einocompact/einocompact/integration/eino"
	"github.com/einocompact/einocompact/openaitest"
)

// memStore is an in-memory adk.CheckPointStore.
type memStore struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.data[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[id] = append([]byte(nil), b...)
	return nil
}

// approveTool asks a human before it acts: its first call interrupts the
// run, and the resumed call returns the human's answer.
type approveTool struct{ calls atomic.Int32 }

func (*approveTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "approve", Desc: "asks the user to approve the plan"}, nil
}

func (t *approveTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	t.calls.Add(1)
	if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
		return "", tool.Interrupt(ctx, "approve the plan?")
	}
	if target, hasData, answer := tool.GetResumeContext[string](ctx); target && hasData {
		return "the user said " + answer, nil
	}
	return "", tool.Interrupt(ctx, "approve the plan?")
}

// hitlModel searches stepsPerTurn times (enough for compactions), then asks
// for approval, then answers with what the approval returned. It counts on
// the server side, since compaction drops earlier calls from the prompt.
func hitlModel() openaitest.Responder {
	var n atomic.Int32
	return func(r *openaitest.Request) (*openaitest.Reply, error) {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" && strings.HasPrefix(last.Content.Text, "the user said") {
			return openaitest.Text("done: " + last.Content.Text), nil
		}
		i := int(n.Add(1))
		if i <= stepsPerTurn {
			return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", i), "search", fmt.Sprintf(`{"query":"hitl #%d"}`, i))), nil
		}
		return openaitest.Call(openaitest.Fn("call_approve", "approve", `{}`)), nil
	}
}

// TestADKInterruptResumeAfterCompaction runs an ADK ChatModelAgent with the
// compaction middleware until a tool interrupts for a human, after several
// compactions put markers into the conversation, and resumes it from the
// checkpoint. Eino checkpoints with gob, so every value compaction stores in
// Extra must encode without the caller registering anything.
func TestADKInterruptResumeAfterCompaction(t *testing.T) {
	t.Parallel()
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.agentSrv = openaitest.Start(t, openaitest.WithPromptUsage(hitlModel()))
			ctx := context.Background()
			cm, err := f.agentSrv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			mw, err := einoint.NewHookMiddleware(f.hook, nil)
			if err != nil {
				t.Fatal(err)
			}
			approve := &approveTool{}
			ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
				Name:          "researcher",
				Description:   "searches the archive",
				Instruction:   "You are a research assistant.",
				Model:         cm,
				ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{searchTool{}, approve}}},
				Handlers:      []adk.ChatModelAgentMiddleware{mw},
				MaxIterations: stepsPerTurn + 3,
			})
			if err != nil {
				t.Fatal(err)
			}
			store := &memStore{data: map[string][]byte{}}
			runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag, EnableStreaming: streaming, CheckPointStore: store})

			iter := runner.Run(ctx, []*schema.Message{schema.UserMessage("hitl question")}, adk.WithCheckPointID("cp"))
			_, interruptID := drainADK(t, iter)
			if interruptID == "" {
				t.Fatal("the run ended without interrupting")
			}
			if n := f.compactions.Load(); n < 2 {
				t.Fatalf("%d compactions before the interrupt, want at least 2", n)
			}
			if _, ok, _ := store.Get(ctx, "cp"); !ok {
				t.Fatal("no checkpoint stored")
			}

			resumed, err := runner.ResumeWithParams(ctx, "cp", &adk.ResumeParams{Targets: map[string]any{interruptID: "yes"}})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			last, again := drainADK(t, resumed)
			if again != "" {
				t.Fatalf("the resumed run interrupted again at %s", again)
			}
			if last != "done: the user said yes" {
				t.Errorf("resumed run ended with %q", last)
			}
			if n := approve.calls.Load(); n != 2 {
				t.Errorf("approve tool ran %d times, want 2 (interrupt, then resume)", n)
			}
			// The resumed run's model call saw the compacted conversation
			// restored from the checkpoint, summary included.
			reqs := f.agentSrv.Requests()
			if final := reqs[len(reqs)-1]; !strings.Contains(final.PromptText(), summaryHead) {
				t.Errorf("the resumed model call carries no summary:\n%s", final.PromptText())
			}
			f.checkRun(t, 2)
		})
	}
}

// drainADK reads an ADK event stream to its end, failing the test on an
// event error, and returns the content of the last message and the id of
// the root-cause interrupt, if the run interrupted.
func drainADK(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) (last, interruptID string) {
	t.Helper()
	for {
		ev, ok := iter.Next()
		if !ok {
			return last, interruptID
		}
		if ev.Err != nil {
			t.Fatalf("run event: %v", ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if ic.IsRootCause {
					interruptID = ic.ID
				}
			}
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			t.Fatal(err)
		}
		last = msg.Content
	}
}
