package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// levelRecorder is a slog.Handler that keeps the level and message of every
// record, at every level.
type levelRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *levelRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *levelRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	return nil
}
func (l *levelRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levelRecorder) WithGroup(string) slog.Handler      { return l }

// errRoundFailed stands for a summarizer that failed in a round the
// compactor reported and then declined.
var errRoundFailed = errors.New("summarizer down: connection refused")

// attr is the value of r's attribute key, "" when absent.
func attr(r slog.Record, key string) string {
	v := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}

// TestHookLogsOneLinePerOutcome checks the default verbosity a library user
// sees: one record per triggered compaction naming its outcome, at Debug
// when it is routine and at Warn when something failed, nothing at Info
// (the application decides what to show), and the trigger itself only at
// Debug.
func TestHookLogsOneLinePerOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     []*schema.Message
		err       error
		wantLevel slog.Level
		wantMsg   string
	}{
		{"applied", fresh()[:2], nil, slog.LevelDebug, "compaction applied"},
		{"declined", nil, nil, slog.LevelDebug, "compaction declined"},
		{"failed", nil, errors.New("summarizer down"), slog.LevelWarn, "compaction failed"},
		// The compactor declined because its summarizer failed
		// (RaiseOnFailure false): a failure, not nothing to compact.
		{"every summarizer round failed", nil, errRoundFailed, slog.LevelWarn, "compaction failed: the summarizer failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &levelRecorder{}
			var comp Compactor = &hookRecorder{reply: tc.reply, err: tc.err}
			if tc.err == errRoundFailed {
				comp = CompactorFunc(func(ctx context.Context, _ []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
					reportRound(ctx, Round{Err: tc.err})
					return nil, nil
				})
			}
			h, err := NewCompactionHook(context.Background(), &HookConfig{
				Compactor: comp, ContextWindow: 1000, TokenCounter: fc4,
				Logger: slog.New(rec)})
			if err != nil {
				t.Fatal(err)
			}
			state := &hooks.State{Messages: fresh(), ContextTokens: 800, StepCount: 2}
			d, _ := h.Decide(context.Background(), state)
			if !d.Triggered {
				t.Fatal("the compaction did not trigger")
			}
			lgCheckOutcome(t, rec, tc.wantLevel, tc.wantMsg, tc.err)
			triggeredAt := slog.Level(-100)
			for _, r := range rec.records {
				if r.Message == "compaction triggered" {
					triggeredAt = r.Level
				}
			}
			if triggeredAt != slog.LevelDebug {
				t.Errorf("\"compaction triggered\" logged at %v, want DEBUG", triggeredAt)
			}
		})
	}
}

// lgCheckOutcome checks that rec holds no record at Info, records above
// Info only for a failure (one, at want, carrying cause), and exactly one
// record of the outcome wantMsg at want.
func lgCheckOutcome(t *testing.T, rec *levelRecorder, want slog.Level, wantMsg string, cause error) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var loud, outcome []string
	for _, r := range rec.records {
		if r.Level == slog.LevelInfo {
			t.Errorf("a record at INFO: %q; a library logs routine events at Debug", r.Message)
		}
		if r.Level > slog.LevelInfo {
			loud = append(loud, r.Level.String()+" "+r.Message)
			if cause != nil && !strings.Contains(attr(r, "error"), cause.Error()) {
				t.Errorf("%q: error attribute %q, want the cause %q", r.Message, attr(r, "error"), cause)
			}
		}
		if strings.HasPrefix(r.Message, wantMsg) {
			outcome = append(outcome, r.Level.String()+" "+r.Message)
		}
	}
	if len(outcome) != 1 || !strings.HasPrefix(outcome[0], want.String()+" ") {
		t.Errorf("outcome records %q, want one %s %q", outcome, want, wantMsg)
	}
	wantLoud := 0 // a routine outcome: nothing above Debug
	if want > slog.LevelInfo {
		wantLoud = 1 // the failure's own record
	}
	if len(loud) != wantLoud {
		t.Errorf("records above Info: %q, want %d", loud, wantLoud)
	}
}

// TestHookLogsRoutineRefusalsAtDebug: a result not applied because it would
// not pay for itself (HookConfig.Prices) and a compaction abandoned because
// the run's ctx ended are routine, logged at Debug, never at Info.
func TestHookLogsRoutineRefusalsAtDebug(t *testing.T) {
	t.Parallel()
	conv := []*schema.Message{sys("rules"), user("task")}
	for i := 0; count(fc1, conv...) < 7000; i++ {
		id := fmt.Sprintf("s%d", i)
		conv = append(conv, call(id), result(id, rep("z", 200)))
	}
	t.Run("unprofitable", func(t *testing.T) {
		t.Parallel()
		rec := &levelRecorder{}
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: keepOneLess, ContextWindow: 10000, TokenCounter: fc1,
			Logger: slog.New(rec), Prices: &PricesOpenAI})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := h.Decide(context.Background(), &hooks.State{Messages: conv}); err != nil || !r.Unprofitable {
			t.Fatalf("unprofitable=%v err=%v, want the small rewrite refused", r.Unprofitable, err)
		}
		lgCheckOutcome(t, rec, slog.LevelDebug, "compaction not applied", nil)
	})
	t.Run("abandoned", func(t *testing.T) {
		t.Parallel()
		rec := &levelRecorder{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cancels := CompactorFunc(func(ctx context.Context, _ []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		})
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: cancels, ContextWindow: 10000, TokenCounter: fc1,
			Logger: slog.New(rec)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Decide(ctx, &hooks.State{Messages: conv}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Decide = %v, want context.Canceled", err)
		}
		lgCheckOutcome(t, rec, slog.LevelDebug, "compaction abandoned", nil)
	})
}

// TestHookLogsPreparedApplied: the "compaction applied" record of a
// compaction prepared in the background says prepared=true, as its Report
// does.
func TestHookLogsPreparedApplied(t *testing.T) {
	t.Parallel()
	rec := &levelRecorder{}
	works := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
		return []*schema.Message{msgs[0], NewSummaryMessage("summary", len(msgs)-1)}, nil
	})
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: works, ContextWindow: 10000, TokenCounter: fc1,
		Logger: slog.New(rec), CompactTo: 0.1, PrepareAt: 0.2, CompactAt: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	ctx := context.Background()
	msgs := []*schema.Message{sys("rules"), user("the task"), call("c1"), result("c1", rep("x", 3000))}
	if r, err := h.Decide(ctx, &hooks.State{Messages: msgs, StepCount: 1}); err != nil || !r.Preparing {
		t.Fatalf("at PrepareAt: preparing=%v err=%v", r.Preparing, err)
	}
	if err := h.WaitPrepared(ctx); err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, call("c2"), result("c2", rep("y", 4500)))
	r, err := h.Decide(ctx, &hooks.State{Messages: msgs, StepCount: 2})
	if err != nil || !r.Prepared || !r.Compacted {
		t.Fatalf("at the trigger: %+v err=%v, want the prepared result applied", r, err)
	}
	var logged []string
	for _, lr := range rec.records {
		if lr.Message == "compaction applied" {
			logged = append(logged, attr(lr, "prepared"))
		}
	}
	if len(logged) != 1 || logged[0] != "true" {
		t.Errorf("\"compaction applied\" records with prepared = %q, want one with true", logged)
	}
	for _, lr := range rec.records {
		if lr.Level == slog.LevelInfo {
			t.Errorf("a record at INFO: %q; a library logs routine events at Debug", lr.Message)
		}
	}
}
