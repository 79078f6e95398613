package compaction

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/tool"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/engine"
	"github.com/einocompact/einocompact/hooks/compaction/internal/jobs"
)

// CompactionHook decides when to compact. Registered at hooks.BeforeLLM, it
// estimates the size of the coming model call and, once that reaches
// ContextWindow*CompactAt, asks its Compactor to bring the conversation down to
// ContextWindow*CompactTo, then replaces State.Messages with the result. When
// the prices make it cheaper (HookConfig.Prices; by default they do), a
// SummarizationCompactor is asked to go deeper (Report.Deep): it keeps the
// newest fifth of the window verbatim and summarizes everything older.
//
// The estimate trusts State.ContextTokens (the provider's size of the last
// call) when it is known and counts locally only the messages added after the
// last assistant reply; with ContextTokens 0 it counts the whole conversation
// and the tool schemas. The part of the provider's number that the counter
// does not see (tool schemas, chat template) is kept as overhead and
// subtracted from the target.
//
// The hook does not trust its compactor: a result that breaks tool-call
// pairing is refused with an error wrapping ErrBrokenToolPairing, one that is
// not smaller by the counter is ignored, and a run whose ctx ends while the
// compactor works gets an error wrapping ctx.Err(). In all three cases
// State.Messages is left as it was, with one exception (HookConfig.PrepareAt):
// when a prepared compaction was applied and the call, still at or above the
// ceiling, compacts further at once, an error of that second compaction is
// returned with State.Messages holding the prepared result, which passed the
// same checks.
//
// A CompactionHook keeps no per-run state and may serve many runs at once.
// It implements hooks.Hook, hooks.PointLimiter, hooks.WarmUpper and hooks.Closer.
type CompactionHook struct {
	compactor Compactor
	counter   TokenCounter
	observer  Observer
	archive   Archive // nil: nothing archived
	// e is the machinery: estimate, jobs, preparation, sharing, apply,
	// bill, room and fallback (package internal/engine).
	e *engine.Engine
}

var (
	_ hooks.Hook         = (*CompactionHook)(nil)
	_ hooks.PointLimiter = (*CompactionHook)(nil)
	_ hooks.WarmUpper    = (*CompactionHook)(nil)
	_ hooks.Closer       = (*CompactionHook)(nil)
)

// Name identifies the hook in errors and logs.
func (h *CompactionHook) Name() string { return "CompactionHook" }

// AllowedPoints implements hooks.PointLimiter: compaction only makes sense
// right before a model call.
func (h *CompactionHook) AllowedPoints() []hooks.Point { return []hooks.Point{hooks.BeforeLLM} }

// Counter returns the hook's token counter.
func (h *CompactionHook) Counter() TokenCounter { return h.counter }

// Compactor returns the hook's compactor.
func (h *CompactionHook) Compactor() Compactor { return h.compactor }

// Run implements hooks.Hook.
func (h *CompactionHook) Run(ctx context.Context, state *hooks.State) error {
	_, err := h.Decide(ctx, state)
	return err
}

// Decide runs the hook on state and returns its Report. Run is Decide
// without the report. When the estimate triggers compaction, the report also
// goes to the Observer and to Eino callback handlers in ctx (component
// ComponentCompaction); the compactor runs on a ctx without the agent's
// callback handlers.
func (h *CompactionHook) Decide(ctx context.Context, state *hooks.State) (Report, error) {
	if state == nil {
		return Report{}, fmt.Errorf("compaction: nil state")
	}
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("compaction: %w", err)
	}
	messages := state.Messages
	r := engine.Report{Step: state.StepCount, ProviderTokens: state.ContextTokens, MessagesBefore: len(messages), MessagesAfter: len(messages)}
	if err := h.e.Gauge(ctx, state, &r); err != nil {
		return reportOf(&r), err
	}
	// early: a cold cache and a prepared compaction ready below the
	// trigger; coldNow: a cold cache and a synchronous hook near the
	// trigger (Prices.CacheTTL).
	early, coldNow := h.e.ColdEarly(ctx, state, &r)
	if !r.Triggered && !early && !coldNow {
		if h.e.PrepareAt > 0 {
			r.Preparing = h.e.Prepare(ctx, state, r.Estimated)
		}
		return reportOf(&r), nil
	}
	// A failed compaction backs off; a prepared one still being written,
	// or one that bought too little room, lets the call go out as it is
	// below the ceiling.
	if !early && (h.e.BackedOff(ctx, messages, &r) || h.e.Waits(ctx, state, &r)) {
		return reportOf(&r), nil
	}
	stallStart := time.Now()
	if err := h.e.Aim(ctx, state, messages, &r); err != nil {
		return reportOf(&r), err
	}

	cbCtx := callbacks.ReuseHandlers(ctx, h.callbackRunInfo())
	cbCtx = callbacks.OnStart(cbCtx, &CompactionInput{Step: r.Step, Estimated: r.Estimated, Target: r.Target, Messages: len(messages)})
	err := h.e.CompactTriggered(ctx, state, messages, early, &r)
	r.Stall = time.Since(stallStart)
	if err != nil {
		r.Err = err
	}
	h.e.Settle(ctx, messages, &r)
	rep := reportOf(&r)
	if err != nil {
		callbacks.OnError(cbCtx, err)
	} else {
		callbacks.OnEnd(cbCtx, &rep)
	}
	if h.observer != nil {
		h.observer.ObserveCompaction(ctx, rep)
	}
	return rep, err
}

// WarmUp warms the counter, then the compactor, where they implement
// hooks.WarmUpper.
func (h *CompactionHook) WarmUp(ctx context.Context) error {
	if w, ok := h.counter.(hooks.WarmUpper); ok {
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("compaction: warm up counter: %w", err)
		}
	}
	if w, ok := h.compactor.(hooks.WarmUpper); ok {
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("compaction: warm up compactor: %w", err)
		}
	}
	return nil
}

// Close cancels the compactor calls the hook started in the background
// (prepared ones; calls abandoned by runs whose ctx ended were cancelled
// then), drops the prepared results, waits until every call returned or ctx
// ends, then closes the compactor when it implements hooks.Closer. A
// synchronous compaction a live run waits for is not cancelled: Close waits
// for it, and the run gets its result, not context.Canceled
// (TestCloseDoesNotFailLiveRuns). The counter is not closed: counters are
// usually shared and hold nothing to release. After Close the hook still
// compacts, synchronously on the caller's goroutine, and prepares nothing.
func (h *CompactionHook) Close(ctx context.Context) error {
	if err := h.e.Close(ctx); err != nil {
		return err
	}
	if c, ok := h.compactor.(hooks.Closer); ok {
		if err := c.Close(ctx); err != nil {
			return fmt.Errorf("compaction: close compactor: %w", err)
		}
	}
	return nil
}

// WaitPrepared waits until every compaction the hook has started preparing
// in the background (HookConfig.PrepareAt) and still keeps has finished, or
// ctx ends. It starts and cancels nothing; the results stay for the calls
// that apply them. With a summarizer that answers at once, whether a
// prepared compaction is finished at the next model call depends on
// goroutine scheduling; a test or an offline demo that calls WaitPrepared
// after each model call gets the same outcome every run.
func (h *CompactionHook) WaitPrepared(ctx context.Context) error { return h.e.WaitPrepared(ctx) }

// Awaited returns a channel that is closed once a model call waits for the
// compaction whose compactor was handed ctx (or a ctx derived from it, such
// as the one a SummarizationCompactor hands its ChatModel). A synchronous
// compaction is waited for from the start, so its channel is closed already.
// A compaction prepared in the background (HookConfig.PrepareAt) is waited
// for when a model call reaches the trigger and finds it still running at or
// above the deferral ceiling (see HookConfig.PrepareAt), or when it is the
// last thing the call needs. A compactor or summarizer may use it to raise
// the priority of background work the agent now waits for; the simulation in
// package bench uses it to charge the wait in simulated time. For a ctx that
// does not come from a CompactionHook the channel is closed: whoever calls a
// compactor directly waits for it.
func Awaited(ctx context.Context) <-chan struct{} { return jobs.Awaited(ctx) }

var (
	_ hooks.ToolProvider = (*CompactionHook)(nil)
	_ hooks.ToolScoper   = (*CompactionHook)(nil)
)

// ProvidedTools implements hooks.ToolProvider: with an archive, the recall
// tool over it (NewRecallTool's defaults), which an agent running the
// hook's registry offers its model; without, none.
func (h *CompactionHook) ProvidedTools(context.Context) ([]tool.BaseTool, error) {
	if h.archive == nil {
		return nil, nil
	}
	recall, err := NewRecallTool(h.archive)
	if err != nil {
		return nil, err
	}
	return []tool.BaseTool{recall}, nil
}

// ScopeToolCall implements hooks.ToolScoper: with an archive, it names the
// conversation of state in ctx (WithConversation), so the recall tool
// refuses another conversation's references.
func (h *CompactionHook) ScopeToolCall(ctx context.Context, state *hooks.State) context.Context {
	if h.archive == nil || state == nil {
		return ctx
	}
	if conv, ok := ArchiveConversation(state.Messages); ok {
		return WithConversation(ctx, conv)
	}
	return ctx
}

// callbackRunInfo names the compaction for Eino callback handlers.
func (h *CompactionHook) callbackRunInfo() *callbacks.RunInfo {
	return &callbacks.RunInfo{Name: h.Name(), Type: h.e.Kind(), Component: ComponentCompaction}
}

// isolated returns a ctx for the compactor's own model calls that carries no
// callback handlers of the agent, so the summarizer's call never shows up as
// a message of the agent, in its stream or in its cost tracking; its usage is
// in the Report instead. Handlers registered globally still see it.
func (h *CompactionHook) isolated(ctx context.Context) context.Context {
	return callbacks.InitCallbacks(ctx, &callbacks.RunInfo{Name: "compaction-summarizer", Type: h.e.Kind(), Component: ComponentCompaction})
}

func compactorType(c Compactor) string {
	if t, ok := components.GetType(c); ok {
		return t
	}
	t := reflect.TypeOf(c)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return "Compactor"
	}
	return t.Name()
}

// withCtxErr makes err wrap ctx.Err() when ctx has ended, so that a counter
// or compactor failing with an error of its own because the run was
// cancelled still reports the cancellation (errors.Is(err, context.Canceled)).
func withCtxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("compaction: cancelled: %w", errors.Join(cerr, err))
	}
	return err
}
