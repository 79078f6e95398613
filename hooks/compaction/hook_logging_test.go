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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &levelRecorder{}
			h, err := NewCompactionHook(context.Background(), &HookConfig{
				Compactor: &hookRecorder{reply: tc.reply, err: tc.err}, ContextWindow: 1000, TokenCounter: fc4,
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
