package inspect

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// run is a conversation driven through a real CompactionHook, its
// SummarizationCompactor calling the real eino-ext OpenAI client against
// the fake endpoint.
type run struct {
	steps     int    // model calls
	toolText  string // text of every tool result
	summary   string // what the summarizer answers
	window    int
	prepareAt float64
	// down makes the summarizer's endpoint answer every call with HTTP 503
	// and downMessage, so every compaction fails and the hook falls back
	// once a call would exceed the window.
	down bool
	// cached is the prompt tokens the summarizer's usage reports as read
	// from the provider's cache.
	cached int
	// aim sets HookConfig.AimAtCompactTo: no deep compactions.
	aim bool
	// archive is HookConfig.Archive; nil: none.
	archive compaction.Archive
}

// downMessage is the error text of the summarizer's endpoint when it is
// down.
const downMessage = "summarizer-endpoint-overloaded-7d1"

// runResult is what the hook's own Observer saw, counted apart from the
// recorder.
type runResult struct {
	reports []compaction.Report
	final   []*schema.Message
}

// drive grows a conversation by one tool step per model call, running the
// wrapped hook before each call, and returns what the hook reported.
func (r run) drive(t testing.TB, rec *Recorder, id string) runResult {
	t.Helper()
	ctx := WithConversation(context.Background(), id)
	srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
		if r.down {
			return &openaitest.Reply{Status: http.StatusServiceUnavailable, ErrorMessage: downMessage}, nil
		}
		reply := openaitest.Text(r.summary).WithUsage(300, 40)
		if r.cached > 0 {
			reply = reply.WithCachedTokens(r.cached)
		}
		return reply, nil
	})
	model, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: model, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var res runResult
	window := r.window
	if window == 0 {
		window = 4000
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: comp, ContextWindow: window, PrepareAt: r.prepareAt,
		Logger: slog.New(slog.DiscardHandler), AimAtCompactTo: r.aim, Archive: r.archive,
		Observer: compaction.ObserverFunc(func(_ context.Context, rep compaction.Report) {
			mu.Lock()
			defer mu.Unlock()
			res.reports = append(res.reports, rep)
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hook.Close(context.Background()) })
	w, err := rec.Wrap(hook)
	if err != nil {
		t.Fatal(err)
	}
	state := &hooks.State{Messages: []*schema.Message{schema.SystemMessage("You are a build agent."), schema.UserMessage("Fix the failing build of service-7.")}}
	for step := range r.steps {
		state.StepCount = step
		if err := w.Run(ctx, state); err != nil {
			t.Fatal(err)
		}
		if r.prepareAt > 0 {
			if err := hook.WaitPrepared(ctx); err != nil {
				t.Fatal(err)
			}
		}
		callID := fmt.Sprintf("call_%d", step)
		state.Messages = append(state.Messages,
			&schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: callID, Function: schema.FunctionCall{Name: "read_log", Arguments: fmt.Sprintf(`{"n":%d}`, step)}}}},
			schema.ToolMessage(fmt.Sprintf("step %d: %s", step, r.toolText), callID, schema.WithToolName("read_log")))
	}
	mu.Lock()
	defer mu.Unlock()
	res.final = state.Messages
	return res
}

// longText is n bytes of ordinary log text.
func longText(n int) string {
	return strings.Repeat("build log line: compiling package ok ", n/37+1)[:n]
}
