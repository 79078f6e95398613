package compaction

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// hookRecorder is a Compactor (and lifecycle participant) that records what
// the hook asked of it and answers with a fixed result.
type hookRecorder struct {
	mu      sync.Mutex
	calls   []string
	targets []int
	reply   []*schema.Message
	err     error
}

func (r *hookRecorder) Compact(_ context.Context, _ []*schema.Message, target int, _ TokenCounter) ([]*schema.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, "compact")
	r.targets = append(r.targets, target)
	return r.reply, r.err
}
func (r *hookRecorder) WarmUp(context.Context) error { r.add("warm_up"); return nil }
func (r *hookRecorder) Close(context.Context) error  { r.add("close"); return nil }
func (r *hookRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

func hookFor(t *testing.T, c Compactor, counter TokenCounter, window int, at, to float64) *CompactionHook {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: window, CompactAt: at, CompactTo: to, TokenCounter: counter,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHookConfigValidation ports H1 and H3.
func TestHookConfigValidation(t *testing.T) {
	t.Parallel()
	c := &hookRecorder{}
	tests := []struct {
		name string
		cfg  *HookConfig
		want string
	}{
		{"nil config", nil, "nil HookConfig"},
		{"no compactor", &HookConfig{ContextWindow: 10}, "Compactor is required"},
		{"H3 window 0", &HookConfig{Compactor: c}, "ContextWindow must be a positive number of tokens, got 0"},
		{"negative window", &HookConfig{Compactor: c, ContextWindow: -3}, "got -3"},
		{"H1 equal", &HookConfig{Compactor: c, ContextWindow: 10, CompactAt: .7, CompactTo: .7}, "0 < CompactTo < CompactAt <= 1, got CompactAt=0.7 CompactTo=0.7"},
		{"H1 inverted", &HookConfig{Compactor: c, ContextWindow: 10, CompactAt: .4, CompactTo: .7}, "CompactAt=0.4 CompactTo=0.7"},
		{"H1 above one", &HookConfig{Compactor: c, ContextWindow: 10, CompactAt: 1.5, CompactTo: .4}, "CompactAt=1.5"},
		{"negative to", &HookConfig{Compactor: c, ContextWindow: 10, CompactAt: .7, CompactTo: -0.1}, "CompactTo=-0.1"},
		{"to above default at", &HookConfig{Compactor: c, ContextWindow: 10, CompactTo: 0.8}, "CompactAt=0.7 CompactTo=0.8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewCompactionHook(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if trig, target := h.Thresholds(); trig != 700 || target != 400 {
		t.Errorf("defaults give trigger %v target %d, want 700 and 400", trig, target)
	}
}

// TestHookOnlyAtBeforeLLM ports H6.
func TestHookOnlyAtBeforeLLM(t *testing.T) {
	t.Parallel()
	h := hookFor(t, &hookRecorder{}, fc4, 1000, .7, .4)
	r := hooks.NewRegistry()
	err := r.Register(hooks.AfterTool, h)
	if err == nil || !strings.Contains(err.Error(), "before_llm") {
		t.Fatalf("Register at after_tool = %v, want an error naming before_llm", err)
	}
	if err := r.Register(hooks.BeforeLLM, h); err != nil {
		t.Fatal(err)
	}
}

// TestHookTriggerAndTarget ports H7-H12 and H14-H15 with FC4 and a window
// of 1000 (trigger 700, base target 400) unless stated. The compactor
// declines; where that leaves the call above the fallback line
// (ContextWindow less FallbackMargin) and something can be removed, the
// model-free fallback runs (wantFallback), which the reference does not have.
func TestHookTriggerAndTarget(t *testing.T) {
	t.Parallel()
	trailing := count(fc4, fresh()[5]) // T(c2): 182 chars -> 45
	tests := []struct {
		name         string
		msgs         []*schema.Message
		tools        []*schema.ToolInfo
		ctxTokens    int
		window       int
		at           float64
		wantEst      int
		wantCalled   bool
		wantTarget   int
		wantOverhead int
		wantFallback bool
	}{
		{"H7 ctx 800", fresh(), nil, 800, 1000, .7, 800 + trailing, true, 0, 800 + trailing - 113, false},
		{"H7 ctx 700", fresh(), nil, 700, 1000, .7, 700 + trailing, true, 400 - (700 + trailing - 113), 700 + trailing - 113, false},
		{"H7 ctx 300", fresh(), nil, 300, 1000, .7, 300 + trailing, false, 0, 0, false},
		{"H8 full count when ctx 0", []*schema.Message{user(rep("x", 4000)), user(rep("x", 4000)), user(rep("x", 4000))}, nil, 0, 1000, .7, (3*4007 + 2) / 4, true, 400 - 0, 0, true},
		// window = FC4(msgs, tools) = 55; messages alone are 3 tokens, so the
		// overhead is 52 and the target max(int(55*0.4)-52, 0) = 0. Above
		// the fallback line, but the one message cannot be removed.
		{"H9 schemas tip it over", []*schema.Message{user("start")}, []*schema.ToolInfo{fetchTool()}, 0, (12 + 208) / 4, 1.0, (12 + 208) / 4, true, 0, 55 - 12/4, false},
		{"H10 no trailing messages", append(repeatMsg(user(rep("x", 400)), 9), asst(rep("y", 400))), nil, 1021, 1000, .7, 1021, true, 400, 0, true},
		{"H11 large overhead clamps to 0", fresh(), nil, 800, 1000, .7, 845, true, 0, 732, false},
		{"H12 negative overhead raises target", []*schema.Message{asst(rep("x", 4000))}, nil, 800, 1000, .7, 800, true, 603, -203, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &hookRecorder{}
			h := hookFor(t, rec, fc4, tc.window, tc.at, 0.4)
			state := &hooks.State{Messages: tc.msgs, Tools: tc.tools, ContextTokens: tc.ctxTokens, StepCount: 2}
			d, err := h.Decide(context.Background(), state)
			if err != nil {
				t.Fatal(err)
			}
			if d.Estimated != tc.wantEst {
				t.Errorf("estimated %d, want %d", d.Estimated, tc.wantEst)
			}
			called := len(rec.targets) == 1
			if called != tc.wantCalled || d.Triggered != tc.wantCalled {
				t.Fatalf("compactor called %v (triggered %v), want %v", called, d.Triggered, tc.wantCalled)
			}
			if !called {
				return
			}
			if rec.targets[0] != max(tc.wantTarget, 0) || d.Overhead != tc.wantOverhead {
				t.Errorf("target %d overhead %d, want %d and %d", rec.targets[0], d.Overhead, max(tc.wantTarget, 0), tc.wantOverhead)
			}
			if tc.wantFallback != (d.Fallback != "") {
				t.Fatalf("Report.Fallback = %q at an estimate of %d in a %d-token window, want a fallback: %v", d.Fallback, d.Estimated, tc.window, tc.wantFallback)
			}
			if tc.wantFallback {
				if !d.Compacted || len(state.Messages) >= len(tc.msgs) || d.Err != nil {
					t.Errorf("after the fallback: compacted %v, %d messages from %d, Err %v", d.Compacted, len(state.Messages), len(tc.msgs), d.Err)
				}
				return
			}
			if state.ContextTokens != tc.ctxTokens || len(state.Messages) != len(tc.msgs) {
				t.Error("a declining compactor changed the state")
			}
		})
	}
}

func repeatMsg(m *schema.Message, n int) []*schema.Message {
	out := make([]*schema.Message, n)
	for i := range out {
		out[i] = m
	}
	return out
}

// TestHookNegativeOverheadWarns checks the H12 warning reaches the logger.
func TestHookNegativeOverheadWarns(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h, _ := NewCompactionHook(context.Background(), &HookConfig{Compactor: &hookRecorder{}, ContextWindow: 1000, TokenCounter: fc4,
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err := h.Run(context.Background(), &hooks.State{Messages: []*schema.Message{asst(rep("x", 4000))}, ContextTokens: 800}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"TokenCounter estimated more tokens for the messages", "message_tokens=1003", "estimated_tokens=800", "target_tokens=603", "compaction declined"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

// TestHookAppliesResult ports H14, H15 and the write-back rule of §B.4
// (H13's numbers with a fixed compactor instead of the sliding window).
func TestHookAppliesResult(t *testing.T) {
	t.Parallel()
	kept := []*schema.Message{sys("rules"), user("start"), call("c2"), result("c2", rep("second result ", 12))}
	tests := []struct {
		name      string
		msgs      []*schema.Message
		ctxTokens int
		reply     []*schema.Message
		wantMsgs  []*schema.Message
		wantCtx   int
	}{
		{"H14 ctx 0 stays 0", []*schema.Message{user(rep("x", 4000))}, 0, []*schema.Message{asst("kept")}, []*schema.Message{asst("kept")}, 0},
		{"H15 declined", fresh(), 800, nil, fresh(), 800},
		// overhead = 845 - 113 = 732; written back = FC4(through the last assistant) + overhead.
		{"H13 write-back", fresh(), 800, kept, kept, count(fc4, kept[:3]...) + 732},
		// No assistant left: 0 + overhead.
		{"no assistant left", fresh(), 800, []*schema.Message{sys("rules"), user("start")}, []*schema.Message{sys("rules"), user("start")}, 732},
		// Write-back never reaches 0, which would mean "unknown".
		{"never written as zero", []*schema.Message{asst(rep("x", 4000))}, 800, []*schema.Message{user("x")}, []*schema.Message{user("x")}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &hookRecorder{reply: tc.reply}
			h := hookFor(t, rec, fc4, 1000, .7, .4)
			input := tc.msgs
			before := cloneAll(input)
			state := &hooks.State{Messages: input, ContextTokens: tc.ctxTokens, StepCount: 3,
				TokenUsage: schema.TokenUsage{PromptTokens: 12}, ToolCallCounts: map[string]int{"fetch": 2}}
			if err := h.Run(context.Background(), state); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(state.Messages, tc.wantMsgs) {
				t.Errorf("messages = %s", Render(state.Messages, RenderOptions{}))
			}
			if state.ContextTokens != tc.wantCtx {
				t.Errorf("ContextTokens = %d, want %d", state.ContextTokens, tc.wantCtx)
			}
			if state.TokenUsage.PromptTokens != 12 || state.ToolCallCounts["fetch"] != 2 || state.StepCount != 3 {
				t.Error("the hook touched unrelated state")
			}
			if !reflect.DeepEqual(input, before) {
				t.Error("the caller's messages were mutated")
			}
		})
	}
}

// TestHookErrors checks compactor and counter errors come back wrapped and
// leave the state alone.
func TestHookErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	badCounter := TokenCounterFunc(func(context.Context, []*schema.Message, []*schema.ToolInfo) (int, error) { return 0, boom })
	tests := []struct {
		name    string
		c       Compactor
		counter TokenCounter
		ctx     func() context.Context
		want    error
	}{
		{"compactor error", &hookRecorder{err: boom}, fc4, context.Background, boom},
		{"counter error", &hookRecorder{}, badCounter, context.Background, boom},
		{"cancelled", &hookRecorder{}, fc4, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := hookFor(t, tc.c, tc.counter, 1000, .7, .4)
			state := &hooks.State{Messages: fresh(), ContextTokens: 800}
			err := h.Run(tc.ctx(), state)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Run = %v, want %v", err, tc.want)
			}
			if len(state.Messages) != 6 || state.ContextTokens != 800 {
				t.Error("a failed run changed the state")
			}
		})
	}
}

// TestEstimate ports §C.4 under FC4.
func TestEstimate(t *testing.T) {
	t.Parallel()
	h := hookFor(t, &hookRecorder{}, fc4, 1000, .7, .4)
	msgs := []*schema.Message{user("start"), asst("reply"), result("c1", rep("R", 400))}
	lookup := &schema.ToolInfo{Name: "lookup", Desc: "Look a word up."}
	ctx := context.Background()
	tests := []struct {
		name  string
		msgs  []*schema.Message
		tools []*schema.ToolInfo
		ctx   int
		want  int
	}{
		{"reported plus trailing tool result", msgs, nil, 5000, 5000 + 414/4},
		{"nothing after the reply", msgs[:2], nil, 5000, 5000},
		{"no assistant: everything on top", msgs[:1], nil, 5000, 5000 + 12/4},
		{"unknown: full count with tools", msgs, []*schema.ToolInfo{lookup}, 0, (render.RuneLen(Render(msgs, RenderOptions{})) + render.RuneLen(RenderTools([]*schema.ToolInfo{lookup}))) / 4},
		{"tools ignored when reported", msgs, []*schema.ToolInfo{lookup}, 5000, 5000 + 414/4},
	}
	for _, tc := range tests {
		got, err := h.e.Estimate(ctx, tc.msgs, tc.tools, tc.ctx)
		if err != nil || got != tc.want {
			t.Errorf("%s: Estimate = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	// Write-back consistency: feeding back what the hook would write gives
	// the full count within the one separator the split loses.
	written := count(fc4, msgs[:2]...)
	again, _ := h.e.Estimate(ctx, msgs, nil, written)
	if full := count(fc4, msgs...); again < full-2 || again > full+2 {
		t.Errorf("re-estimate %d drifts from the full count %d", again, full)
	}
}

// countingCounter is a counter that also warms up, to check the hook's
// lifecycle delegation (H17).
type countingCounter struct {
	TokenCounter
	warmed, closed int
}

func (c *countingCounter) WarmUp(context.Context) error { c.warmed++; return nil }
func (c *countingCounter) Close(context.Context) error  { c.closed++; return nil }

func TestHookLifecycle(t *testing.T) {
	t.Parallel()
	rec := &hookRecorder{}
	counter := &countingCounter{TokenCounter: fc4}
	h := hookFor(t, rec, counter, 1000, .7, .4)
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, h); err != nil {
		t.Fatal(err)
	}
	if err := reg.WarmUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.calls, ",") != "warm_up,close" {
		t.Errorf("compactor saw %v", rec.calls)
	}
	if counter.warmed != 1 || counter.closed != 0 {
		t.Errorf("counter warmed %d closed %d, want 1 and 0", counter.warmed, counter.closed)
	}
}

// TestHookSharedAcrossRuns runs one hook on many states at once.
func TestHookSharedAcrossRuns(t *testing.T) {
	t.Parallel()
	kept := []*schema.Message{sys("rules"), user("start")}
	h := hookFor(t, &hookRecorder{reply: kept}, DefaultCounter(), 1000, .7, .4)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			state := &hooks.State{Messages: fresh(), ContextTokens: 600 + i*10}
			if err := h.Run(context.Background(), state); err != nil {
				t.Error(err)
				return
			}
			est := 600 + i*10 + count(DefaultCounter(), fresh()[5])
			if triggered := float64(est) >= 700; triggered != (len(state.Messages) == 2) {
				t.Errorf("run %d: estimate %d, %d messages left", i, est, len(state.Messages))
			}
		})
	}
	wg.Wait()
}
