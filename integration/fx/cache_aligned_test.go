package compactfx

import (
	"strings"
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
			_, c := summarizerOf(t, file)
			if c.CacheAligned() != tc.want {
				t.Errorf("CacheAligned %v, want %v", c.CacheAligned(), tc.want)
			}
		})
	}
	if _, err := parse([]byte("compaction:\n  summarize:\n    cache_aligned: sometimes\n")); err == nil {
		t.Error("cache_aligned: sometimes parsed; want an error")
	}
}

// cache_aligned left out is on exactly when the summarizer is the agent's
// model (no summarizer block, or one naming the agent's endpoint and
// model); a written value wins either way.
func TestCacheAlignedDefaultPerWiring(t *testing.T) {
	t.Parallel()
	const model = "model:\n  base_url: http://127.0.0.1:1/v1\n  model: agent-model\n"
	cases := []struct {
		name string
		file string
		want bool
	}{
		{"no summarizer block", model, true},
		{"summarizer block naming the agent's endpoint and model", model + "summarizer:\n  base_url: http://127.0.0.1:1/v1\n  model: agent-model\n  timeout: 30s\n", true},
		{"summarizer block with only a timeout", model + "summarizer:\n  timeout: 30s\n", true},
		{"separate summarizer model", model + "summarizer:\n  model: small-model\n", false},
		{"separate summarizer endpoint", model + "summarizer:\n  base_url: http://127.0.0.2:1/v1\n", false},
		{"offline summarizer beside an online agent", model + "summarizer:\n  provider: offline\n", false},
		{"offline agent", "", false},
		{"agent's model, written false", model + "compaction:\n  context_window: 20000\n  summarize:\n    cache_aligned: false\n", false},
		{"separate model, written true", model + "summarizer:\n  model: small-model\ncompaction:\n  context_window: 20000\n  summarize:\n    cache_aligned: true\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := tc.file
			if !strings.Contains(file, "compaction:") {
				file += "compaction:\n  context_window: 20000\n"
			}
			cfg, c := summarizerOf(t, file)
			if c.CacheAligned() != tc.want {
				t.Errorf("CacheAligned %v, want %v (summarizer is the agent's model: %v)", c.CacheAligned(), tc.want, cfg.SummarizerIsAgentModel())
			}
		})
	}
}

// summarizerOf builds the fx module from a config file and returns the
// config and the summarization compactor its hook got.
func summarizerOf(t *testing.T, file string) (*Config, *compaction.SummarizationCompactor) {
	t.Helper()
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
	return cfg, c
}
