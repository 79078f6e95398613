package compaction_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// h22FC4 is FakeCounter(4): code points of the rendering (then the tool
// schemas) divided by four.
var h22FC4 = compaction.TokenCounterFunc(func(_ context.Context, msgs []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(msgs) == 0 && len(tools) == 0 {
		return 0, nil
	}
	return utf8.RuneCountInString(compaction.Render(msgs, compaction.RenderOptions{})+compaction.RenderTools(tools)) / 4, nil
})

// h22Seen is what the hook found before one model call.
type h22Seen struct {
	ctxTokens int
	report    *compaction.Report // nil when not triggered
}

// TestSlidingWindowInAgentLoop is reference case H22: a real agent loop, with a sliding-window hook at
// the defaults (window 1000, at 0.7, to 0.4), a model that calls fetch three
// times (usage 700+100 each) then answers, and fetch returning "DATA "*200.
// Numbers that depend on the Go rendering are derived from FC4 arithmetic.
func TestSlidingWindowInAgentLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	args := `{"topic":"haystack"}`
	srv := openaitest.Start(t, openaitest.Script(
		openaitest.Call(openaitest.Fn("c1", "fetch", args)).WithUsage(700, 100),
		openaitest.Call(openaitest.Fn("c2", "fetch", args)).WithUsage(700, 100),
		openaitest.Call(openaitest.Fn("c3", "fetch", args)).WithUsage(700, 100),
		openaitest.Text("done").WithUsage(700, 100),
	))
	chat, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fetch, err := utils.InferTool("fetch", "Fetch a document about a topic.",
		func(_ context.Context, in struct {
			Topic string `json:"topic" jsonschema:"description=the topic to fetch"`
		}) (string, error) {
			return strings.Repeat("DATA ", 200), nil
		})
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var trace []h22Seen
	sw, _ := compaction.NewSlidingWindowCompactor(ctx, nil)
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor: sw, ContextWindow: 1000, TokenCounter: h22FC4, Logger: slog.New(slog.DiscardHandler),
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			mu.Lock()
			defer mu.Unlock()
			trace[len(trace)-1].report = &r
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	record := hooks.Func(func(_ context.Context, s *hooks.State) error {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, h22Seen{ctxTokens: s.ContextTokens})
		return nil
	})
	for _, h := range []hooks.Hook{record, hook} {
		if err := reg.Register(hooks.BeforeLLM, h); err != nil {
			t.Fatal(err)
		}
	}
	a, err := agent.New(ctx, &agent.Config{Model: chat, Tools: []tool.BaseTool{fetch}, Instruction: "rules", Hooks: reg,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("start")})
	if err != nil {
		t.Fatal(err)
	}

	if len(trace) != 4 {
		t.Fatalf("%d model calls, want 4", len(trace))
	}
	// Call 1: nothing reported yet, and the conversation is tiny.
	if trace[0].ctxTokens != 0 || trace[0].report != nil {
		t.Errorf("call 1: ctx %d, report %+v; want 0 and not triggered", trace[0].ctxTokens, trace[0].report)
	}
	// Calls 2-4: 800 reported plus the one new result, "[tool:fetch] " + 1000 chars.
	result := (len("[tool:fetch] ") + 1000) / 4
	for i, wantCompacted := range []bool{false, true, true} {
		s := trace[i+1]
		if s.ctxTokens != 800 || s.report == nil || s.report.Estimated != 800+result {
			t.Fatalf("call %d: ctx %d, report %+v; want 800 and estimate %d", i+2, s.ctxTokens, s.report, 800+result)
		}
		if s.report.Target != 0 || s.report.Compacted != wantCompacted {
			t.Errorf("call %d: target %d compacted %v; want 0 and %v (the only step is kept at call 2)",
				i+2, s.report.Target, s.report.Compacted, wantCompacted)
		}
	}
	if got := trace[2].report.MessagesAfter; got != 5 {
		t.Errorf("call 3 left %d messages, want 5: S, U, note, the newest call and its result", got)
	}

	msgs := res.Messages
	roles := make([]string, len(msgs))
	marked := 0
	for i, m := range msgs {
		roles[i] = string(m.Role)
		if compaction.HasMarkerKey(m) {
			marked++
		}
	}
	if strings.Join(roles, ",") != "system,user,user,assistant,tool,assistant" || marked != 1 {
		t.Fatalf("final conversation %v with %d marked messages", roles, marked)
	}
	if msgs[0].Content != "rules" || msgs[1].Content != "start" || msgs[5].Content != "done" || msgs[3].ToolCalls[0].ID != "c3" {
		t.Errorf("final conversation:\n%s", compaction.Render(msgs, compaction.RenderOptions{ToolCallIDs: true}))
	}
	if f, _ := compaction.MarkerFields(msgs[2]); f["removed_messages"] != 3 {
		t.Errorf("the last note removed %v messages, want 3: the old note and the second step", f["removed_messages"])
	}
	for _, r := range srv.Requests() {
		if err := openaitest.CheckToolPairing(r.Messages); err != nil {
			t.Errorf("a request broke tool pairing: %v", err)
		}
	}
}
