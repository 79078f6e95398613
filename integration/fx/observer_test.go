package compactfx

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// obsRecorder counts the reports it receives.
type obsRecorder struct {
	mu      sync.Mutex
	reports []compaction.Report
}

func (o *obsRecorder) ObserveCompaction(_ context.Context, r compaction.Report) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reports = append(o.reports, r)
}

func (o *obsRecorder) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.reports)
}

func TestCompactionsReachGroupAndRunObservers(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Compaction.Strategy = StrategySlide
	cfg.Compaction.ContextWindow = 100
	app := &obsRecorder{}
	var reg *hooks.Registry
	fxtest.New(t, fx.NopLogger, Module(cfg),
		fx.Provide(fx.Annotate(func() compaction.Observer { return app }, fx.ResultTags(`group:"`+ObserverGroup+`"`))),
		fx.Populate(&reg),
	).RequireStart().RequireStop()

	// A finished old turn and a current task: well over the 70-token trigger.
	conversation := func() *hooks.State {
		return &hooks.State{Messages: []*schema.Message{
			schema.SystemMessage("rules"),
			schema.UserMessage("old question " + strings.Repeat("x", 600)),
			schema.AssistantMessage("old answer "+strings.Repeat("y", 600), nil),
			schema.UserMessage("current task"),
		}}
	}
	run := &obsRecorder{}
	st := conversation()
	if err := reg.Run(WithObserver(context.Background(), run), hooks.BeforeLLM, st); err != nil {
		t.Fatal(err)
	}
	if len(st.Messages) >= 4 {
		t.Fatalf("no compaction: %d messages", len(st.Messages))
	}
	if app.count() != 1 || run.count() != 1 {
		t.Errorf("app observer saw %d reports, run observer %d; want 1 each", app.count(), run.count())
	}
	// A run without its own observer still reports to the application's.
	if err := reg.Run(context.Background(), hooks.BeforeLLM, conversation()); err != nil {
		t.Fatal(err)
	}
	if app.count() != 2 || run.count() != 1 {
		t.Errorf("after a second run: app %d, run %d; want 2 and 1", app.count(), run.count())
	}
}
