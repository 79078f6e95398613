package compactfx

import (
	"context"
	"testing"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// compaction.aim_at_compact_to sets HookConfig.AimAtCompactTo: left out, a
// compaction at the trigger goes deep (Report.Deep); set, it aims at
// compact_to.
func TestAimAtCompactToKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		line     string
		wantDeep bool
	}{
		{"left out", "", true},
		{"false", "  aim_at_compact_to: false\n", true},
		{"true", "  aim_at_compact_to: true\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 32000\n  prepare_at: 0\n" + tc.line + "summarizer:\n  provider: offline\n"
			cfg, err := parse([]byte(file))
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				t.Fatal(err)
			}
			var hook *compaction.CompactionHook
			if err := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&hook)).Err(); err != nil {
				t.Fatal(err)
			}
			r, err := hook.Decide(context.Background(), &hooks.State{Messages: fetchConversation()})
			if err != nil || !r.Triggered || !r.Compacted {
				t.Fatalf("triggered %v, compacted %v, err %v", r.Triggered, r.Compacted, err)
			}
			if r.Deep != tc.wantDeep {
				t.Errorf("deep %v, want %v", r.Deep, tc.wantDeep)
			}
		})
	}
}
