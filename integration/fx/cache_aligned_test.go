package compactfx

import (
	"testing"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// compaction.summarize.cache_aligned reaches the summarization compactor;
// left out, it is off.
func TestCacheAlignedKeyReachesCompactor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		line string
		want bool
	}{
		{"left out", "", false},
		{"true", "cache_aligned: true", true},
		{"false", "cache_aligned: false", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 20000\n  summarize:\n    min_keep_steps: 1\n"
			if tc.line != "" {
				file += "    " + tc.line + "\n"
			}
			cfg, err := parse([]byte(file))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var hook *compaction.CompactionHook
			app := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&hook))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			c, ok := hook.Compactor().(*compaction.SummarizationCompactor)
			if !ok {
				t.Fatalf("compactor %T, want the summarization compactor", hook.Compactor())
			}
			if c.CacheAligned() != tc.want {
				t.Errorf("CacheAligned %v, want %v", c.CacheAligned(), tc.want)
			}
		})
	}
	if _, err := parse([]byte("compaction:\n  summarize:\n    cache_aligned: sometimes\n")); err == nil {
		t.Error("cache_aligned: sometimes parsed; want an error")
	}
}
