package compactfx

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

func TestModuleValidates(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{StrategySummarize, StrategySlide, StrategyPrune, StrategyPipeline} {
		cfg := DefaultConfig()
		cfg.Compaction.Strategy = strategy
		err := fx.ValidateApp(Module(cfg), fx.Invoke(func(*hooks.Registry, *compaction.CompactionHook, Summarizer) {}))
		if err != nil {
			t.Errorf("strategy %s: fx.ValidateApp: %v", strategy, err)
		}
	}
}

func TestModuleBuildsTheConfiguredStrategy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		strategy string
		check    func(compaction.Compactor) bool
	}{
		{StrategySummarize, func(c compaction.Compactor) bool { _, ok := c.(*compaction.SummarizationCompactor); return ok }},
		{StrategySlide, func(c compaction.Compactor) bool { _, ok := c.(*compaction.SlidingWindowCompactor); return ok }},
		{StrategyPrune, func(c compaction.Compactor) bool { _, ok := c.(*compaction.ToolResultPruningCompactor); return ok }},
		{StrategyPipeline, func(c compaction.Compactor) bool {
			p, ok := c.(*compaction.Pipeline)
			return ok && len(p.Stages()) == 2
		}},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Compaction.Strategy = tt.strategy
			var hook *compaction.CompactionHook
			var reg *hooks.Registry
			app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&hook, &reg))
			app.RequireStart().RequireStop()
			if !tt.check(hook.Compactor()) {
				t.Errorf("compactor is %T", hook.Compactor())
			}
			if got := reg.Hooks(hooks.BeforeLLM); len(got) != 1 || unwrapHook(got[0]) != hooks.Hook(hook) {
				t.Errorf("registry at before_llm = %v, want just the compaction hook", got)
			}
		})
	}
}

func TestModuleDisabledRegistersNothing(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Compaction.Enabled = false
	var reg *hooks.Registry
	fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&reg)).RequireStart().RequireStop()
	if n := reg.Len(hooks.BeforeLLM); n != 0 {
		t.Errorf("%d hooks at before_llm with compaction disabled, want 0", n)
	}
}

func TestModuleRejectsInvalidConfigNamingTheKey(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Compaction.CompactTo = 0.9
	app := fx.New(fx.NopLogger, Module(cfg), fx.Invoke(func(*hooks.Registry) {}))
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "compaction.compact_to = 0.9") {
		t.Fatalf("fx.New error = %v, want one naming compaction.compact_to", err)
	}
}

func TestModuleNilConfig(t *testing.T) {
	t.Parallel()
	app := fx.New(fx.NopLogger, Module(nil), fx.Invoke(func(*hooks.Registry) {}))
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "needs a *Config") {
		t.Fatalf("fx.New error = %v", err)
	}
}

// lcEvents records lifecycle calls in order, across goroutines.
type lcEvents struct {
	mu  sync.Mutex
	got []string
}

func (e *lcEvents) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, s)
}

func (e *lcEvents) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

// lcHook is an application hook contributed through the value group.
type lcHook struct {
	ev         *lcEvents
	block      chan struct{} // when non-nil, WarmUp waits on it and ignores ctx
	blockClose chan struct{} // when non-nil, Close waits on it and ignores ctx
}

func (h *lcHook) Run(context.Context, *hooks.State) error { return nil }
func (h *lcHook) WarmUp(context.Context) error {
	if h.block != nil {
		<-h.block
	}
	h.ev.add("app hook warm-up")
	return nil
}
func (h *lcHook) Close(context.Context) error {
	if h.blockClose != nil {
		<-h.blockClose
	}
	h.ev.add("app hook close")
	return nil
}

// lcSummarizer wraps the module's summarizer to record its lifecycle while
// still delegating to it, so the endpoint sees the real warm-up request.
type lcSummarizer struct {
	Summarizer
	ev *lcEvents
}

func (s *lcSummarizer) WarmUp(ctx context.Context) error {
	s.ev.add("summarizer warm-up")
	return s.Summarizer.(hooks.WarmUpper).WarmUp(ctx)
}

func (s *lcSummarizer) Close(ctx context.Context) error {
	s.ev.add("summarizer close")
	return s.Summarizer.(hooks.Closer).Close(ctx)
}

var _ model.BaseChatModel = (*lcSummarizer)(nil)

func TestLifecycleWarmsUpAndClosesOnceInOrder(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text("OK"), nil })
	cfg := DefaultConfig()
	cfg.Summarizer.BaseURL = srv.BaseURL()
	cfg.Summarizer.Model = "fake-summarizer"
	cfg.Summarizer.WarmUp = true
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ev := &lcEvents{}
	app := fxtest.New(t, fx.NopLogger, Module(cfg),
		fx.Provide(AsHook(func() HookEntry { return HookEntry{Point: hooks.BeforeRun, Hook: &lcHook{ev: ev}} })),
		fx.Decorate(func(s Summarizer) Summarizer { return &lcSummarizer{Summarizer: s, ev: ev} }),
		fx.Invoke(func(*hooks.Registry) {}),
	)
	app.RequireStart()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("after start the endpoint saw %d requests, want the one warm-up request", n)
	}
	if r := srv.Requests()[0]; r.Model != "fake-summarizer" || !strings.HasSuffix(r.Path, "/chat/completions") {
		t.Errorf("warm-up request = model %q path %q", r.Model, r.Path)
	}
	app.RequireStop()
	// Warm-up in registration order (before_run's hook, then before_llm's
	// compaction hook and its summarizer); close in reverse.
	want := []string{"app hook warm-up", "summarizer warm-up", "summarizer close", "app hook close"}
	if got := ev.list(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lifecycle events = %q, want %q", got, want)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the endpoint saw %d requests in all, want 1", n)
	}
}

func TestLifecycleHonoursTheStartDeadline(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	app := fx.New(fx.NopLogger, Module(DefaultConfig()),
		fx.Provide(AsHook(func() HookEntry {
			return HookEntry{Point: hooks.AfterRun, Hook: &lcHook{ev: &lcEvents{}, block: block}}
		})),
		fx.Invoke(func(*hooks.Registry) {}),
	)
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := app.Start(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start = %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

func TestLifecycleHonoursTheStopDeadline(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	app := fx.New(fx.NopLogger, Module(DefaultConfig()),
		fx.Provide(AsHook(func() HookEntry {
			return HookEntry{Point: hooks.AfterRun, Hook: &lcHook{ev: &lcEvents{}, blockClose: block}}
		})),
		fx.Invoke(func(*hooks.Registry) {}),
	)
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := app.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop = %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

func TestSlogEventLoggerUsesTheContainersLogger(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	app := fx.New(fx.Supply(log), WithSlogEventLogger(), Module(DefaultConfig()), fx.Invoke(func(*hooks.Registry) {}))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "level=DEBUG msg=provided") || !strings.Contains(buf.String(), "hooks.Registry") {
		t.Errorf("fx events did not reach the supplied logger at debug level:\n%.500s", buf.String())
	}
}

func TestRegistryFromEntriesSortsByPointOrderName(t *testing.T) {
	t.Parallel()
	named := func(n string) hooks.Hook { return &namedHook{n} }
	a, b, c, d := named("a"), named("b"), named("c"), named("d")
	entries := []HookEntry{
		{Point: hooks.BeforeLLM, Hook: d, Order: 5},
		{Point: hooks.BeforeLLM, Hook: c, Order: -1},
		{Point: hooks.BeforeLLM, Hook: b, Order: 5},
		{Point: hooks.BeforeRun, Hook: a, Order: 99},
	}
	reg, err := newRegistryFromEntries(entries)
	if err != nil {
		t.Fatal(err)
	}
	got := reg.Hooks(hooks.BeforeLLM)
	if len(got) != 3 || unwrapHook(got[0]) != c || unwrapHook(got[1]) != b || unwrapHook(got[2]) != d {
		t.Errorf("before_llm order = %v, want c, b, d", got)
	}
	if _, err := newRegistryFromEntries([]HookEntry{{Point: "sometime", Hook: a, Name: "mine"}}); err == nil || !strings.Contains(err.Error(), "mine") {
		t.Errorf("bad point error = %v, want it to name the entry", err)
	}
	if _, err := newRegistryFromEntries([]HookEntry{{Point: hooks.AfterRun, Hook: (*namedHook)(nil)}}); err == nil {
		t.Error("a typed-nil hook was registered")
	}
}

func TestRegistryWarmsAndClosesEachHookOnce(t *testing.T) {
	t.Parallel()
	ev := &lcEvents{}
	h := &lcHook{ev: ev}
	reg, err := newRegistryFromEntries([]HookEntry{
		{Point: hooks.BeforeRun, Hook: h},
		{Point: hooks.AfterRun, Hook: h},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 3 {
		if err := reg.WarmUp(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := reg.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := "app hook warm-up|app hook close"
	if got := strings.Join(ev.list(), "|"); got != want {
		t.Errorf("events = %q, want %q (the fx lifecycle and the agent both warm the registry)", got, want)
	}
	if got := hooks.HookName(reg.Hooks(hooks.BeforeRun)[0]); !strings.Contains(got, "lcHook") {
		t.Errorf("HookName of the wrapped hook = %q, want the hook's own name", got)
	}
}

type namedHook struct{ n string }

func (h *namedHook) Run(context.Context, *hooks.State) error { return nil }
func (h *namedHook) Name() string                            { return h.n }
