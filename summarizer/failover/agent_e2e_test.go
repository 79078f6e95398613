package failover_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
	"github.com/einocompact/einocompact/summarizer/extractive"
	"github.com/einocompact/einocompact/summarizer/failover"
)

const (
	e2eWindow   = 2000 // the agent model's context window, in tokens
	e2eSteps    = 14   // tool calls before the final answer
	e2eDownText = "summarizer overloaded, try later"
	e2eRetries  = 2 // as the fx module's default
	e2eAnswer   = "the flaky test is TestExport in internal/export/export_test.go"
)

// e2eReadTool returns about 200 tokens per call, so the run crosses
// compact_at (70% of the window) several times.
type e2eReadTool struct{}

func (e2eReadTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "read_file",
		Desc: "reads a file of the repository",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"path": {Type: schema.String, Required: true},
		}),
	}, nil
}

func (e2eReadTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Path string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return "contents of " + in.Path + "\n" + strings.Repeat("func helper() { return nil }\n", 28), nil
}

// e2eCollector keeps what the compaction and the failover chain reported.
type e2eCollector struct {
	mu       sync.Mutex
	reports  []compaction.Report
	attempts []failover.Attempt
}

func (c *e2eCollector) ObserveCompaction(_ context.Context, r compaction.Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reports = append(c.reports, r)
}

func (c *e2eCollector) onAttempt(_ context.Context, a failover.Attempt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts = append(c.attempts, a)
}

// e2eSyncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type e2eSyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *e2eSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *e2eSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAgentContinuesWhenTheSummarizerIsDown runs a real agent over loopback
// HTTP whose summarizer endpoint answers every call with HTTP 503. The
// compactor raises on any failed round, so the run can only reach its
// answer if the failover chain's extractive fallback wrote every summary.
// The dead endpoint costs the first round its tries (three, with two
// retries) and no later round anything: its breaker stays open for the
// run, and the log says once, at Warn, that the extractive summarizer
// writes the summaries.
func TestAgentContinuesWhenTheSummarizerIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	script := make([]*openaitest.Reply, 0, e2eSteps+1)
	for i := range e2eSteps {
		script = append(script, openaitest.Call(openaitest.Fn(
			fmt.Sprintf("call_%02d", i+1), "read_file", fmt.Sprintf(`{"path":"internal/export/part_%02d.go"}`, i+1))))
	}
	script = append(script, openaitest.Text(e2eAnswer))
	agentSrv := openaitest.Start(t, openaitest.WithPromptUsage(openaitest.Script(script...)))
	downSrv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
		return &openaitest.Reply{Status: 503, ErrorMessage: e2eDownText}, nil
	})

	primary, err := downSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fallback, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := &e2eCollector{}
	var logs e2eSyncBuffer
	chain, err := failover.New(&failover.Config{
		Candidates: []failover.Candidate{{Name: "primary", Model: primary}, {Name: "extractive", Model: fallback}},
		Retries:    e2eRetries,
		BaseDelay:  time.Millisecond,
		CoolDown:   time.Hour, // longer than the run, however slow the machine
		OnAttempt:  got.onAttempt,
		Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	summaryTokens := 200
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel:                chain,
		ApproximateSummaryTokens: &summaryTokens,
		RaiseOnFailure:           true,
		Logger:                   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: comp, ContextWindow: e2eWindow, Observer: got, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		t.Fatal(err)
	}
	agentModel, err := agentSrv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, &agent.Config{
		Model: agentModel, Tools: []tool.BaseTool{e2eReadTool{}}, Instruction: "You are a coding agent.",
		Hooks: reg, MaxSteps: e2eSteps + 1, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}

	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("Find the flaky export test.")})
	if err != nil {
		t.Fatalf("the run failed although the extractive fallback cannot: %v", err)
	}
	if res.ExitReason != agent.ExitText || res.Message.Content != e2eAnswer {
		t.Fatalf("exit %q with %q, want the scripted answer", res.ExitReason, res.Message.Content)
	}
	if rej := agentSrv.Rejected(); len(rej) != 0 {
		t.Fatalf("the provider rejected %d prompts; first: %s", len(rej), rej[0].Rejected)
	}

	got.mu.Lock()
	defer got.mu.Unlock()
	const tries = e2eRetries + 1
	rounds := 0
	for i, r := range got.reports {
		if !r.Triggered || r.Err != nil || !r.Compacted || r.Saved() <= 0 {
			t.Errorf("report %d: triggered %v, compacted %v, saved %d, err %v", i, r.Triggered, r.Compacted, r.Saved(), r.Err)
		}
		for j, round := range r.Rounds {
			want := 1 // the extractive summary alone: the primary cools down
			if rounds == 0 {
				want = tries + 1 // the primary's tries, then the extractive summary
			}
			rounds++
			if round.Err != nil || round.Attempts != want || round.Model != chain.GetType() {
				t.Errorf("report %d round %d: err %v, %d attempts by %q; want %d", i, j, round.Err, round.Attempts, round.Model, want)
			}
		}
	}
	if len(got.reports) < 2 || rounds < len(got.reports) {
		t.Fatalf("%d compactions with %d rounds; the run should cross compact_at more than once", len(got.reports), rounds)
	}
	if n := len(downSrv.Requests()); n != tries {
		t.Errorf("the dead primary was called %d times in %d rounds; want %d, all in the first round", n, rounds, tries)
	}
	if len(got.attempts) != tries+rounds {
		t.Fatalf("%d attempts for %d rounds, want %d", len(got.attempts), rounds, tries+rounds)
	}
	for i, a := range got.attempts {
		primaryTry := i < tries
		if primaryTry && (a.Model != "primary" || !strings.Contains(a.Err, e2eDownText)) || !primaryTry && (a.Model != "extractive" || a.Err != "") {
			t.Errorf("attempt %d: %+v; want the primary failing %d times, then the extractive summarizer succeeding", i, a, tries)
		}
	}
	var warns []string
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") {
			warns = append(warns, line)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `\"extractive\" writes the summaries`) || !strings.Contains(warns[0], e2eDownText) {
		t.Errorf("%d Warn lines; want one naming the primary's error and the extractive summarizer that writes instead:\n%s", len(warns), logs.String())
	}
	stats := chain.Stats()
	if p, x := stats[0], stats[1]; p.FailedAttempts != tries || p.Replies != 0 || p.Skipped != rounds-1 || x.Replies != rounds {
		t.Errorf("Stats() = %+v; want the primary failing %d tries and skipped %d times, the extractive writing %d replies", stats, tries, rounds-1, rounds)
	}
	summaries := 0
	for _, m := range res.Messages {
		if compaction.IsStrategy(m, compaction.StrategySummarization) {
			summaries++
		}
	}
	if summaries == 0 || len(res.Messages) >= 2+2*e2eSteps+1 {
		t.Errorf("returned conversation: %d messages, %d summaries; want it compacted", len(res.Messages), summaries)
	}
}
