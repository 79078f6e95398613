package compactfx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestPrepareAtDefaultsAgree: a hook built from a file that leaves out
// prepare_at (and compact_at, compact_to) has the thresholds of one built
// in Go from a HookConfig that leaves them zero, prepare_at included: off,
// compactions are synchronous. A call between 0.45 and compact_at starts no
// background compaction in either.
func TestPrepareAtDefaultsAgree(t *testing.T) {
	t.Parallel()
	const window = 8000
	cfg, err := parse([]byte(fmt.Sprintf("compaction:\n  context_window: %d\nsummarizer:\n  provider: offline\n", window)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var fromYAML *compaction.CompactionHook
	app := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&fromYAML))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	sw, err := compaction.NewSlidingWindowCompactor(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fromGo, err := compaction.NewCompactionHook(context.Background(), &compaction.HookConfig{Compactor: sw, ContextWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	y, g := fromYAML.Limits(), fromGo.Limits()
	if y != g {
		t.Fatalf("defaults differ: YAML %+v, Go %+v", y, g)
	}
	if y.PrepareAt != DefaultPrepareAt || DefaultConfig().Compaction.PrepareAt != DefaultPrepareAt {
		t.Errorf("prepare_at %v (DefaultConfig %v), want DefaultPrepareAt %v", y.PrepareAt, DefaultConfig().Compaction.PrepareAt, DefaultPrepareAt)
	}
	// Half the window, by the default counter's four characters a token:
	// above 0.45, below compact_at.
	msgs := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage(strings.Repeat("word ", window*4/2/5))}
	for name, h := range map[string]*compaction.CompactionHook{"YAML": fromYAML, "Go": fromGo} {
		r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs})
		if err != nil || r.Triggered || r.Estimated < window*45/100 {
			t.Fatalf("%s: triggered=%v estimated=%d err=%v; want a call between 0.45 and compact_at", name, r.Triggered, r.Estimated, err)
		}
		if r.Preparing {
			t.Errorf("%s: a compaction started in the background by default", name)
		}
	}
}

// prepare_at in a file: left out it is off, whatever compact_to and
// compact_at say; written, it is kept, and a bad one is named.
func TestPrepareAtFromTheFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		yaml    string
		want    float64
		wantErr string
	}{
		{"defaults", "compaction:\n  context_window: 8000\n", 0, ""},
		{"left out, compact_to raised", "compaction:\n  compact_to: 0.5\n", 0, ""},
		{"left out, compact_at lowered", "compaction:\n  compact_at: 0.42\n  compact_to: 0.3\n", 0, ""},
		{"written and fits", "compaction:\n  compact_to: 0.5\n  prepare_at: 0.65\n", 0.65, ""},
		{"written as measured", "compaction:\n  prepare_at: 0.45\n", 0.45, ""},
		{"written off", "compaction:\n  compact_to: 0.5\n  prepare_at: 0\n", 0, ""},
		{"written and does not fit", "compaction:\n  compact_to: 0.5\n  prepare_at: 0.45\n", 0.45, "compaction.prepare_at"},
		{"compact_to itself bad", "compaction:\n  compact_to: 0.8\n", 0, "compaction.compact_to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "app.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			err := LoadInto(path, cfg, cfg, func(string) (string, bool) { return "", false })
			if tt.wantErr == "" && err != nil {
				t.Fatalf("LoadInto: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("LoadInto: %v; want an error naming %s", err, tt.wantErr)
			}
			if cfg.Compaction.PrepareAt != tt.want {
				t.Errorf("prepare_at %v; want %v", cfg.Compaction.PrepareAt, tt.want)
			}
		})
	}
}
