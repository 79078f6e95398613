package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// The real-time setting of TestAgentPreparedCompactionDoesNotStall: each
// step adds about a twentieth of the window, so the hook starts a
// compaction at prepare_at about five model calls (of zsModelDelay each,
// plus tool time) before the call that reaches compact_at, and the
// summarizer needs zsSummarizerDelay, about half of that time.
const (
	zsWindow          = 2000
	zsSteps           = 16 // tool calls per user turn before the answer
	zsModelDelay      = 100 * time.Millisecond
	zsSummarizerDelay = 250 * time.Millisecond
)

// zsSpan is when one request was being served.
type zsSpan struct{ start, end time.Time }

// zsServer wraps a responder with a delay and records when each request was
// served.
type zsServer struct {
	delay time.Duration
	next  openaitest.Responder
	mu    sync.Mutex
	spans []zsSpan
}

func (s *zsServer) respond(r *openaitest.Request) (*openaitest.Reply, error) {
	start := time.Now()
	time.Sleep(s.delay)
	reply, err := s.next(r)
	s.mu.Lock()
	s.spans = append(s.spans, zsSpan{start, time.Now()})
	s.mu.Unlock()
	return reply, err
}

func (s *zsServer) served() []zsSpan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.spans)
}

// zsModel searches zsSteps times per user turn, then answers.
func zsModel() openaitest.Responder {
	var mu sync.Mutex
	counts := map[string]int{}
	var ids atomic.Int64
	return func(r *openaitest.Request) (*openaitest.Reply, error) {
		turn := ""
		for _, m := range r.Messages {
			if m.Role == "user" && !strings.HasPrefix(m.Content.Text, summaryHead) {
				turn = m.Content.Text
			}
		}
		mu.Lock()
		n := counts[turn]
		counts[turn] = n + 1
		mu.Unlock()
		if n >= zsSteps {
			return openaitest.Text("answer to " + turn), nil
		}
		return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", ids.Add(1)), "search", fmt.Sprintf(`{"query":"%s #%d"}`, turn, n+1))), nil
	}
}

// TestAgentPreparedCompactionDoesNotStall runs the agent over the eino-ext
// client against a model that answers in 100 ms and a summarizer that takes
// 250 ms, with PrepareAt on, across two Run calls that carry the compacted
// history forward. The summarizer works while the agent keeps calling the
// model, the compactions are applied from the background, the calls that
// apply them do not wait for the summarizer, nothing is orphaned, and Close
// leaves no goroutine.
func TestAgentPreparedCompactionDoesNotStall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	model := &zsServer{delay: zsModelDelay, next: zsModel()}
	var sumN atomic.Int32
	summarizer := &zsServer{delay: zsSummarizerDelay, next: func(*openaitest.Request) (*openaitest.Reply, error) {
		return openaitest.Text(fmt.Sprintf("summary %d: searched the archive several times; results were lorem ipsum.", sumN.Add(1))), nil
	}}
	modelSrv := openaitest.New(openaitest.WithPromptUsage(model.respond))
	sumSrv := openaitest.New(openaitest.WithPromptUsage(summarizer.respond))

	var mu sync.Mutex
	var reports []compaction.Report
	hook := zsHook(t, sumSrv, compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
		mu.Lock()
		reports = append(reports, r)
		mu.Unlock()
	}), zsWindow)
	a := zsAgent(t, modelSrv, hook)

	var history []*schema.Message
	for turn, q := range []string{"first question", "second question"} {
		in := append(slices.Clone(history), schema.UserMessage(q))
		res, err := a.Run(ctx, in)
		if err != nil {
			t.Fatalf("turn %d: %v", turn+1, err)
		}
		if res.Message == nil || res.Message.Content != "answer to "+q {
			t.Fatalf("turn %d: final message %v", turn+1, res.Message)
		}
		if err := openaitest.CheckToolPairing(toWire(res.Messages)); err != nil {
			t.Fatalf("turn %d: returned conversation: %v", turn+1, err)
		}
		history = res.Messages
	}
	if err := hook.Close(ctx); err != nil {
		t.Fatal(err)
	}
	modelSrv.Close()
	sumSrv.Close()

	if rej := modelSrv.Rejected(); len(rej) > 0 {
		t.Fatalf("the provider rejected %d requests (orphaned tool messages?); first: %s", len(rej), rej[0].Rejected)
	}
	for i, r := range modelSrv.Requests() {
		if got := r.ApproxPromptTokens(); got > zsWindow {
			t.Errorf("request %d: prompt of ~%d tokens exceeds the %d-token window", i, got, zsWindow)
		}
	}
	var prepared []time.Duration
	for _, r := range reports {
		if r.Err != nil {
			t.Errorf("compaction at step %d failed: %v", r.Step, r.Err)
		}
		if r.Compacted && r.Prepared {
			prepared = append(prepared, r.Stall)
		}
	}
	if len(prepared) < 2 {
		t.Fatalf("%d compactions applied from the background (reports %+v), want at least 2", len(prepared), reports)
	}
	// A call that applies a prepared compaction waits at most for what is
	// left of it; most find it ready. Measured by the hook (Stall) and,
	// independently, by the servers: the agent model was being called
	// while the summarizer worked.
	slices.Sort(prepared)
	if med := prepared[len(prepared)/2]; med >= zsSummarizerDelay/2 {
		t.Errorf("median stall of prepared compactions %v (all: %v), want below half the summarizer's %v", med, prepared, zsSummarizerDelay)
	}
	overlapped := 0
	for _, s := range summarizer.served() {
		for _, m := range model.served() {
			if m.start.After(s.start) && m.end.Before(s.end) {
				overlapped++
			}
		}
	}
	t.Logf("%d compactions, %d prepared with stalls %v; %d model calls served while the summarizer worked", len(reports), len(prepared), prepared, overlapped)
	if overlapped == 0 {
		t.Error("no model call was served while the summarizer worked: the agent waited for it")
	}
}

// zsHook is a compaction hook over sumSrv with PrepareAt 0.45.
func zsHook(t *testing.T, sumSrv *openaitest.Server, obs compaction.Observer, window int) *compaction.CompactionHook {
	t.Helper()
	ctx := context.Background()
	sumModel, err := sumSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	summaryTokens := 40
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: sumModel, ApproximateSummaryTokens: &summaryTokens, RaiseOnFailure: true, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: comp, ContextWindow: window, PrepareAt: 0.45, Observer: obs, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func zsAgent(t *testing.T, modelSrv *openaitest.Server, hook *compaction.CompactionHook) *agent.Agent {
	t.Helper()
	ctx := context.Background()
	cm, err := modelSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, &agent.Config{
		Model: cm, Tools: []tool.BaseTool{searchTool{}}, Instruction: "You are a research assistant.",
		Hooks: reg, MaxSteps: zsSteps + 1, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPreparedThroughADKAndReact: the ADK middleware and the react option
// get prepared compactions through the hook: results computed in the
// background are applied, and every check of the synchronous runs holds.
func TestPreparedThroughADKAndReact(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		run  func(*testing.T, *fixture, bool)
	}{{"adk", runADK}, {"react", runReact}} {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", tt.name, streaming), func(t *testing.T) {
				t.Parallel()
				f := newFixture(t)
				var prepared atomic.Int32
				f.hook = zsHook(t, f.sumSrv, compaction.Observers(f, compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
					if r.Prepared && r.Compacted {
						prepared.Add(1)
					}
				})), window)
				t.Cleanup(func() { _ = f.hook.Close(context.Background()) })
				tt.run(t, f, streaming)
				f.checkRun(t, 2)
				if prepared.Load() == 0 {
					t.Error("no compaction was applied from the background")
				}
			})
		}
	}
}
