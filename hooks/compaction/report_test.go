package compaction

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// reportCompactor pretends to run two summarizer rounds, making a "model
// call" through Eino callbacks in each, then returns kept (or err).
func reportCompactor(kept []*schema.Message, err error) Compactor {
	return CompactorFunc(func(ctx context.Context, _ []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
		for i := range 2 {
			mctx := callbacks.ReuseHandlers(ctx, &callbacks.RunInfo{Name: "summarizer", Component: components.ComponentOfChatModel})
			mctx = callbacks.OnStart(mctx, "prompt")
			callbacks.OnEnd(mctx, "summary")
			reportRound(ctx, Round{Tier: TierCurrentTaskSteps, TokensBefore: 100 - i, TokensAfter: 50 - i, Latency: time.Millisecond})
		}
		return kept, err
	})
}

type seenCallbacks struct {
	mu     sync.Mutex
	events []string
	report *Report
}

func (s *seenCallbacks) handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			s.add("start:" + string(info.Component))
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			s.add("end:" + string(info.Component))
			if r, ok := out.(*Report); ok {
				s.mu.Lock()
				s.report = r
				s.mu.Unlock()
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, _ error) context.Context {
			s.add("error:" + string(info.Component))
			return ctx
		}).Build()
}

func (s *seenCallbacks) add(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

func TestHookReports(t *testing.T) {
	t.Parallel()
	kept := []*schema.Message{sys("rules"), user("start"), call("c2"), result("c2", "r")}
	boom := errors.New("summarizer down")
	tests := []struct {
		name       string
		compactor  Compactor
		wantEvents string
		wantErr    error
		compacted  bool
	}{
		{"compacted", reportCompactor(kept, nil), "start:Compaction,end:Compaction", nil, true},
		{"declined", reportCompactor(nil, nil), "start:Compaction,end:Compaction", nil, false},
		{"failed", reportCompactor(nil, boom), "start:Compaction,error:Compaction", boom, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var observed []Report
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: tc.compactor, ContextWindow: 1000, TokenCounter: fc4,
				Logger: slog.New(slog.DiscardHandler), Observer: ObserverFunc(func(_ context.Context, r Report) { observed = append(observed, r) })})
			if err != nil {
				t.Fatal(err)
			}
			seen := &seenCallbacks{}
			ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "agent"}, seen.handler())
			state := &hooks.State{Messages: fresh(), ContextTokens: 800, StepCount: 4}
			r, err := h.Decide(ctx, state)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Decide error %v, want %v", err, tc.wantErr)
			}
			// The agent's handlers see the compaction, never the summarizer's model call.
			if got := joinEvents(seen); got != tc.wantEvents {
				t.Errorf("agent callbacks saw %q, want %q", got, tc.wantEvents)
			}
			if len(observed) != 1 {
				t.Fatalf("observer called %d times, want 1", len(observed))
			}
			o := observed[0]
			if o.Step != 4 || o.Estimated != 845 || o.Target != 0 || o.Compacted != tc.compacted || len(o.Rounds) != 2 || o.Rounds[1].TokensBefore != 99 {
				t.Errorf("observed report %+v", o)
			}
			if o.TokensBefore != 113 {
				t.Errorf("TokensBefore %d, want FC4(FRESH) = 113", o.TokensBefore)
			}
			if tc.compacted {
				if o.MessagesAfter != 4 || o.TokensAfter != count(fc4, kept...) || o.Saved() != 113-count(fc4, kept...) {
					t.Errorf("after: %+v", o)
				}
				if seen.report == nil || seen.report.MessagesAfter != 4 {
					t.Error("OnEnd did not carry the report")
				}
			} else if o.Saved() != 0 || len(state.Messages) != 6 {
				t.Errorf("nothing should change: saved %d, %d messages", o.Saved(), len(state.Messages))
			}
			if r.Compacted != o.Compacted {
				t.Error("Decide and Observer disagree")
			}
		})
	}
}

func TestHookNoReportBelowTrigger(t *testing.T) {
	t.Parallel()
	called := false
	h, _ := NewCompactionHook(context.Background(), &HookConfig{Compactor: reportCompactor(nil, nil), ContextWindow: 1000, TokenCounter: fc4,
		Logger: slog.New(slog.DiscardHandler), Observer: ObserverFunc(func(context.Context, Report) { called = true })})
	seen := &seenCallbacks{}
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "agent"}, seen.handler())
	if err := h.Run(ctx, &hooks.State{Messages: fresh(), ContextTokens: 300}); err != nil {
		t.Fatal(err)
	}
	if called || len(seen.events) != 0 {
		t.Errorf("below the trigger: observer %v, callbacks %v", called, seen.events)
	}
}

func TestReportRoundOutsideHookIsANoOp(t *testing.T) {
	t.Parallel()
	reportRound(context.Background(), Round{Tier: TierHistoricalTurns}) // must not panic
}

func joinEvents(s *seenCallbacks) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ""
	for i, e := range s.events {
		if i > 0 {
			out += ","
		}
		out += e
	}
	return out
}

func TestCompactorType(t *testing.T) {
	t.Parallel()
	sc, _, _ := scNew(t, scFixed(t, "s"), scConfig{})
	tests := []struct {
		c    Compactor
		want string
	}{
		{sc, "SummarizationCompactor"},
		{CompactorFunc(nil), "CompactorFunc"},
		{&hookRecorder{}, "hookRecorder"},
	}
	for _, tc := range tests {
		if got := compactorType(tc.c); got != tc.want {
			t.Errorf("compactorType(%T) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
