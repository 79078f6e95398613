package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

const (
	window       = 1000 // the agent model's context window, in tokens
	stepsPerTurn = 12   // tool calls the fake model makes before answering
	resultBytes  = 400  // size of each tool result (about 100 tokens)
	summaryHead  = "<conversation_summary>"
)

// searchTool returns a bulky result, so every step grows the prompt by about
// a tenth of the window.
type searchTool struct{}

func (searchTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "search",
		Desc: "searches the archive",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"query": {Type: schema.String, Required: true},
		}),
	}, nil
}

func (searchTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Query string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	head := "results for " + in.Query + ": "
	return head + strings.Repeat("lorem ipsum ", (resultBytes-len(head))/12), nil
}

// agentModel is the fake agent model: in each user turn it searches
// stepsPerTurn times, then answers. It keeps its count per turn on the
// server side because compaction removes earlier calls from the prompt,
// which is the point. Usage tracks the prompt size, like a real provider.
type agentModel struct {
	mu    sync.Mutex
	calls map[string]int
	ids   atomic.Int64
}

func newAgentModel() *agentModel { return &agentModel{calls: map[string]int{}} }

func (m *agentModel) respond(r *openaitest.Request) (*openaitest.Reply, error) {
	turn := ""
	for _, msg := range r.Messages {
		if msg.Role == "user" && !strings.HasPrefix(msg.Content.Text, summaryHead) {
			turn = msg.Content.Text
		}
	}
	if last := r.Messages[len(r.Messages)-1]; last.Role == "user" && !strings.HasPrefix(last.Content.Text, summaryHead) {
		// A new user message starts (or restarts) the turn's count.
		m.mu.Lock()
		m.calls[turn] = 0
		m.mu.Unlock()
	}
	m.mu.Lock()
	n := m.calls[turn]
	m.calls[turn] = n + 1
	m.mu.Unlock()
	if n >= stepsPerTurn {
		return openaitest.Text("answer to " + turn), nil
	}
	id := m.ids.Add(1)
	return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", id), "search", fmt.Sprintf(`{"query":"%s #%d"}`, turn, n+1))), nil
}

// fixture is one agent model endpoint, one summarizer endpoint and a
// compaction hook using the summarizer.
type fixture struct {
	agentSrv, sumSrv *openaitest.Server
	hook             *compaction.CompactionHook
	compactions      atomic.Int32
	failed           atomic.Int32
}

// ObserveCompaction counts the compactions the hook applied.
func (f *fixture) ObserveCompaction(_ context.Context, r compaction.Report) {
	if r.Compacted {
		f.compactions.Add(1)
	}
	if r.Err != nil {
		f.failed.Add(1)
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{}
	f.agentSrv = openaitest.Start(t, openaitest.WithPromptUsage(newAgentModel().respond))
	var n atomic.Int32
	f.sumSrv = openaitest.Start(t, openaitest.WithPromptUsage(func(r *openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text(fmt.Sprintf("summary %d: searched the archive several times; results were lorem ipsum.", n.Add(1))), nil
	}))
	sumModel, err := f.sumSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	summaryTokens := 40
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel:                sumModel,
		ApproximateSummaryTokens: &summaryTokens,
		RaiseOnFailure:           true,
		Logger:                   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.hook, err = compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     comp,
		ContextWindow: window,
		Logger:        slog.New(slog.DiscardHandler),
		Observer:      f,
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkRun asserts what every end-to-end run must show: no request was
// rejected, several compactions happened, every prompt the model saw fit the
// window, and later prompts were compacted.
func (f *fixture) checkRun(t *testing.T, minCompactions int) {
	t.Helper()
	if rej := f.agentSrv.Rejected(); len(rej) > 0 {
		t.Fatalf("the provider rejected %d requests; first: %s", len(rej), rej[0].Rejected)
	}
	if n := int(f.compactions.Load()); n < minCompactions {
		t.Errorf("%d compactions, want at least %d (compact_at crossed several times)", n, minCompactions)
	}
	if n := f.failed.Load(); n != 0 {
		t.Errorf("%d compactions failed", n)
	}
	if len(f.sumSrv.Requests()) < minCompactions {
		t.Errorf("summarizer called %d times", len(f.sumSrv.Requests()))
	}
	compacted := 0
	for i, r := range f.agentSrv.Requests() {
		if got := r.ApproxPromptTokens(); got > window {
			t.Errorf("request %d: prompt of ~%d tokens exceeds the %d-token window", i, got, window)
		}
		if strings.Contains(r.PromptText(), summaryHead) {
			compacted++
		}
		for _, s := range r.Messages {
			if strings.Contains(s.Content.Text, "searched the archive several times") && s.Role != "user" {
				t.Errorf("request %d: summary sent as %s", i, s.Role)
			}
		}
	}
	if compacted == 0 {
		t.Error("no prompt the model saw contained a summary")
	}
}

// checkConversation asserts a returned conversation is compacted and
// well-formed: a summary carrying its marker, fewer messages than the run
// produced, and no orphan tool message.
func checkConversation(t *testing.T, msgs []*schema.Message, produced int) {
	t.Helper()
	summaries := 0
	for _, m := range msgs {
		if mk, ok := compaction.MarkerOf(m); ok && mk.Strategy == compaction.StrategySummarization {
			summaries++
		}
	}
	if summaries == 0 {
		t.Error("returned conversation has no summary message")
	}
	if len(msgs) >= produced {
		t.Errorf("returned conversation has %d messages, not fewer than the %d produced", len(msgs), produced)
	}
	if err := openaitest.CheckToolPairing(toWire(msgs)); err != nil {
		t.Errorf("returned conversation: %v", err)
	}
}

func toWire(msgs []*schema.Message) []openaitest.Message {
	out := make([]openaitest.Message, 0, len(msgs))
	for _, m := range msgs {
		w := openaitest.Message{Role: string(m.Role), Content: openaitest.Content{Text: m.Content}, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, openaitest.Fn(tc.ID, tc.Function.Name, tc.Function.Arguments))
		}
		out = append(out, w)
	}
	return out
}
