package compaction

import (
	"context"
	"errors"
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
// sees: one record at Info or above per triggered compaction, naming its
// outcome, and the trigger itself only at Debug.
func TestHookLogsOneLinePerOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     []*schema.Message
		err       error
		wantLevel slog.Level
		wantMsg   string
	}{
		{"applied", fresh()[:2], nil, slog.LevelInfo, "compaction applied"},
		{"declined", nil, nil, slog.LevelInfo, "compaction declined"},
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
			var loud []string
			triggeredAt := slog.Level(-100)
			for _, r := range rec.records {
				if r.Level >= slog.LevelInfo {
					loud = append(loud, r.Level.String()+" "+r.Message)
					if tc.err != nil && !strings.Contains(attr(r, "error"), tc.err.Error()) {
						t.Errorf("%q: error attribute %q, want the cause %q", r.Message, attr(r, "error"), tc.err)
					}
				}
				if r.Message == "compaction triggered" {
					triggeredAt = r.Level
				}
			}
			if len(loud) != 1 || !strings.HasPrefix(loud[0], tc.wantLevel.String()+" "+tc.wantMsg) {
				t.Errorf("records at Info or above: %q, want one %s %q", loud, tc.wantLevel, tc.wantMsg)
			}
			if triggeredAt != slog.LevelDebug {
				t.Errorf("\"compaction triggered\" logged at %v, want DEBUG", triggeredAt)
			}
		})
	}
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
}
