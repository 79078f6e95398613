package compaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// caInstructionStart opens the user instruction that closes a cache-aligned
// summarizer request; the fake server tells that request apart by it.
const caInstructionStart = "Stop working on the task for this one reply."

// caShape says which kind of request the fake server got.
func caShape(r *openaitest.Request) string {
	last := r.Messages[len(r.Messages)-1]
	switch {
	case last.Role == "user" && strings.HasPrefix(last.Content.Text, caInstructionStart):
		return compaction.ShapeCacheAligned
	case len(r.Messages) == 2 && r.Messages[0].Content.Text == compaction.DefaultSummaryInstruction:
		return compaction.ShapeTranscript
	}
	return "agent"
}

// caJSON is v as JSON, for comparing what was sent on the wire.
func caJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// caFetch is a tool whose results fill the window in a few steps.
func caFetch(t *testing.T) tool.BaseTool {
	t.Helper()
	fetch, err := utils.InferTool("fetch", "Fetch a document about a topic.",
		func(_ context.Context, in struct {
			Topic string `json:"topic" jsonschema:"description=the topic to fetch"`
		}) (string, error) {
			return "doc " + in.Topic + " " + strings.Repeat("DATA ", 200), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return fetch
}

// TestCacheAlignedRequestAsSent runs the real agent and the real eino-ext
// client against the fake server, with the agent's own model as the
// summarizer, and checks on the HTTP bodies that the summarizer request is
// the agent's last request as it was sent (system prompt, tool schemas,
// messages, in order) plus one user instruction, and that the round reports
// its shape and the cached tokens the server reported.
func TestCacheAlignedRequestAsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const cached = 384
	var mu sync.Mutex
	agentCalls := 0
	srv := openaitest.Start(t, func(r *openaitest.Request) (*openaitest.Reply, error) {
		if caShape(r) != "agent" {
			return openaitest.Text("## Objective\n- fetch documents\n## Work completed\n- fetched t1 and t2").
				WithUsage(r.ApproxPromptTokens(), 20).WithCachedTokens(cached), nil
		}
		mu.Lock()
		defer mu.Unlock()
		agentCalls++
		if agentCalls <= 5 {
			id := fmt.Sprintf("c%d", agentCalls)
			return openaitest.Call(openaitest.Fn(id, "fetch", fmt.Sprintf(`{"topic":"t%d"}`, agentCalls))).
				WithUsage(r.ApproxPromptTokens(), 10), nil
		}
		return openaitest.Text("done").WithUsage(r.ApproxPromptTokens(), 1), nil
	})
	chat, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	summarizer, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: chat, CacheAligned: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var reports []compaction.Report
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: summarizer, ContextWindow: 1200, TokenCounter: h22FC4, Logger: slog.New(slog.DiscardHandler),
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			mu.Lock()
			defer mu.Unlock()
			reports = append(reports, r)
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, &agent.Config{Model: chat, Tools: []tool.BaseTool{caFetch(t)}, Instruction: "You fetch documents.",
		Hooks: reg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, []*schema.Message{schema.UserMessage("fetch t1 to t5")}); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	var lastAgent *openaitest.Request
	checked := 0
	for _, r := range reqs {
		if r.Rejected != "" {
			t.Errorf("the server rejected a request: %s", r.Rejected)
		}
		switch caShape(r) {
		case "agent":
			lastAgent = r
			continue
		case compaction.ShapeTranscript:
			t.Errorf("a transcript request was sent; every round should be cache-aligned here")
			continue
		}
		checked++
		if lastAgent == nil {
			t.Fatal("a summarizer request came before any agent request")
		}
		prefix := r.Messages[:len(r.Messages)-1]
		if got, want := caJSON(t, prefix), caJSON(t, lastAgent.Messages); got != want {
			t.Errorf("summarizer messages differ from the agent's last request:\n got %s\nwant %s", got, want)
		}
		if got, want := caJSON(t, r.Tools), caJSON(t, lastAgent.Tools); got != want || len(r.Tools) != 1 {
			t.Errorf("summarizer tools %s, want the agent's %s", got, want)
		}
		if s, a := r.System(), lastAgent.System(); len(s) != 1 || s[0] != "You fetch documents." || len(a) != 1 || a[0] != s[0] {
			t.Errorf("system prompts: summarizer %q, agent %q", s, a)
		}
		instr := r.Messages[len(r.Messages)-1].Content.Text
		for _, want := range []string{"Do not call any tool", "## Identifiers", "counting its first message as 1", "Keep the summary under about "} {
			if !strings.Contains(instr, want) {
				t.Errorf("the instruction lacks %q:\n%s", want, instr)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no cache-aligned summarizer request was sent")
	}
	rounds := 0
	for _, rep := range reports {
		for _, rd := range rep.Rounds {
			rounds++
			if rd.Shape != compaction.ShapeCacheAligned || rd.AlignedFallback != "" || rd.CachedTokens != cached || rd.Err != nil {
				t.Errorf("round: shape %q fallback %q cached %d err %v; want %q, none, %d, nil",
					rd.Shape, rd.AlignedFallback, rd.CachedTokens, rd.Err, compaction.ShapeCacheAligned, cached)
			}
		}
	}
	t.Logf("%d cache-aligned summarizer requests, %d requests in all", checked, len(reqs))
	if rounds != checked {
		t.Errorf("%d rounds reported for %d summarizer requests", rounds, checked)
	}
}

// caConversation is a system prompt, a task and steps tool steps of fetch,
// the fourth with a result four times the size of the others.
func caConversation(steps int) []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You fetch documents."), schema.UserMessage("fetch everything")}
	for i := 1; i <= steps; i++ {
		id := fmt.Sprintf("c%d", i)
		size := 100
		if i == 4 {
			size = 400
		}
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "fetch", Arguments: fmt.Sprintf(`{"topic":"t%d"}`, i)}}}),
			schema.ToolMessage(fmt.Sprintf("doc t%d /srv/t%d.txt ", i, i)+strings.Repeat("DATA ", size), id, schema.WithToolName("fetch")))
	}
	return msgs
}

// TestCacheAlignedFallbacks checks, over real HTTP, when a cache-aligned
// compactor sends the transcript request instead: after a reply that calls a
// tool or has no text (once, then the transcript's reply is used), and at
// once when the cache-aligned request is over MaxSummarizerInputTokens.
func TestCacheAlignedFallbacks(t *testing.T) {
	t.Parallel()
	summary := openaitest.Text("## Work completed\n- fetched t1 to t3")
	msgs := caConversation(6)
	request := msgs[:compaction.LastAssistantIndex(msgs)]
	requestTokens, err := h22FC4.Count(context.Background(), request, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		aligned  *openaitest.Reply // the reply to a cache-aligned request
		budget   int
		shapes   []string // requests sent, in order
		shape    string   // Round.Shape
		fallback string
		attempts int
	}{
		{name: "summary", aligned: summary, shapes: []string{compaction.ShapeCacheAligned},
			shape: compaction.ShapeCacheAligned, attempts: 1},
		{name: "tool call", aligned: openaitest.Call(openaitest.Fn("x1", "fetch", `{"topic":"t7"}`)),
			shapes: []string{compaction.ShapeCacheAligned, compaction.ShapeTranscript},
			shape:  compaction.ShapeTranscript, fallback: compaction.FallbackToolCall, attempts: 2},
		{name: "empty reply", aligned: openaitest.Text(""),
			shapes: []string{compaction.ShapeCacheAligned, compaction.ShapeTranscript},
			shape:  compaction.ShapeTranscript, fallback: compaction.FallbackEmptyReply, attempts: 2},
		// The agent's request alone is at the budget; with the instruction
		// the cache-aligned request is over it, while the span fits.
		{name: "over budget", aligned: summary, budget: requestTokens, shapes: []string{compaction.ShapeTranscript},
			shape: compaction.ShapeTranscript, fallback: compaction.FallbackOverBudget, attempts: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, func(r *openaitest.Request) (*openaitest.Reply, error) {
				if caShape(r) == compaction.ShapeCacheAligned {
					return tc.aligned, nil
				}
				return summary, nil
			})
			chat, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			one := 1
			var rounds []compaction.Round
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
				ChatModel: chat, CacheAligned: true, MinKeepSteps: &one, MaxSummarizerInputTokens: tc.budget,
				Logger: slog.New(slog.DiscardHandler), OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
			if err != nil {
				t.Fatal(err)
			}
			tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic."}}
			total, err := h22FC4.Count(ctx, msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Compact(compaction.WithRequestTools(ctx, tools), msgs, total-150, h22FC4)
			if err != nil || out == nil {
				t.Fatalf("Compact: %v, %d messages", err, len(out))
			}
			if len(rounds) == 0 {
				t.Fatal("no round reported")
			}
			var shapes []string
			for _, r := range srv.Requests() {
				shapes = append(shapes, caShape(r))
				if r.Rejected != "" {
					t.Errorf("rejected: %s", r.Rejected)
				}
			}
			// The first round is the one under test; count its requests.
			first := shapes[:len(tc.shapes)]
			if strings.Join(first, ",") != strings.Join(tc.shapes, ",") {
				t.Errorf("requests %v, want the first round to send %v", shapes, tc.shapes)
			}
			r := rounds[0]
			if r.Shape != tc.shape || r.AlignedFallback != tc.fallback || r.Attempts != tc.attempts || r.Err != nil {
				t.Errorf("round: shape %q fallback %q attempts %d err %v; want %q %q %d nil",
					r.Shape, r.AlignedFallback, r.Attempts, r.Err, tc.shape, tc.fallback, tc.attempts)
			}
			if strings.Contains(compaction.Render(out, compaction.RenderOptions{}), "t7") {
				t.Error("the tool call the summarizer asked for reached the conversation")
			}
		})
	}
}
