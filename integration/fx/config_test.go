package compactfx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "# only a comment\n", "compaction: {}\n"} {
		cfg, err := parse([]byte(in))
		if err != nil {
			t.Fatalf("parse(%q): %v", in, err)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("defaults of %q do not validate: %v", in, err)
		}
		c := cfg.Compaction
		// The documented defaults (docs/configuration.md, design.md).
		if c.Strategy != "summarize" || c.ContextWindow != 128000 || c.CompactAt != 0.7 || c.CompactTo != 0.4 ||
			!c.Enabled || c.Summarize.MinKeepSteps != 1 || c.Summarize.ApproximateSummaryTokens != nil ||
			c.Counter.CharsPerToken != 4.0 || c.Prune.MinTokens != 200 || strings.Join(c.Pipeline, ",") != "prune,summarize" {
			t.Errorf("parse(%q) compaction = %+v, want the documented defaults", in, c)
		}
		if cfg.Agent.MaxSteps != 20 || cfg.Model.Timeout.Std() != 2*time.Minute || cfg.Summarizer.Provider != "auto" {
			t.Errorf("parse(%q) = %+v, want the documented defaults", in, cfg)
		}
	}
}

func TestParseOverridesKeepOtherDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := parse([]byte(`
compaction:
  context_window: 6000
  summarize:
    approximate_summary_tokens: 300
  pipeline: [slide]
model:
  timeout: 45s
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Compaction.ContextWindow != 6000 || (cfg.Compaction.Summarize.ApproximateSummaryTokens == nil || *cfg.Compaction.Summarize.ApproximateSummaryTokens != 300) {
		t.Errorf("overrides not applied: %+v", cfg.Compaction)
	}
	if cfg.Compaction.CompactAt != 0.7 || cfg.Compaction.Summarize.MinKeepSteps != 1 {
		t.Errorf("siblings of overridden keys lost their defaults: %+v", cfg.Compaction)
	}
	if got := strings.Join(cfg.Compaction.Pipeline, ","); got != "slide" {
		t.Errorf("pipeline = %q, want the file's list to replace the default", got)
	}
	if cfg.Model.Timeout.Std() != 45*time.Second {
		t.Errorf("model.timeout = %v, want 45s", cfg.Model.Timeout)
	}
}

func TestParseErrorsNameKeyAndValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []string // substrings of the error
	}{
		{"typo at top", "compactoin:\n  strategy: slide\n", []string{"unknown key compactoin", "line 1", "did you mean compaction"}},
		{"typo nested", "compaction:\n  context_windw: 10\n", []string{"compaction.context_windw", "line 2", "compaction.context_window"}},
		{"far-off key lists the known ones", "agent:\n  zzzzzzzz: 1\n", []string{"agent.zzzzzzzz", "known keys here: instruction, max_steps"}},
		{"wrong type", "compaction:\n  context_window: lots\n", []string{"compaction.context_window (line 2)", "lots"}},
		{"bare number duration", "summarizer:\n  timeout: 60\n", []string{"summarizer.timeout (line 2)", `"60"`, "unit"}},
		{"wrong type in list", "compaction:\n  pipeline:\n    - [a]\n", []string{"compaction.pipeline[0] (line 3)"}},
		{"bad yaml", "compaction: [\n", []string{"config:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse([]byte(tt.yaml))
			if err == nil {
				t.Fatalf("parse(%q) = nil error", tt.yaml)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestValidateNamesKeyAndValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"window", func(c *Config) { c.Compaction.ContextWindow = 0 }, "compaction.context_window = 0"},
		{"at above 1", func(c *Config) { c.Compaction.CompactAt = 1.5 }, "compaction.compact_at = 1.5"},
		{"to not below at", func(c *Config) { c.Compaction.CompactTo = 0.8 }, "compaction.compact_to = 0.8"},
		{"strategy", func(c *Config) { c.Compaction.Strategy = "shrink" }, `compaction.strategy = "shrink"`},
		{"pipeline entry", func(c *Config) { c.Compaction.Pipeline = []string{"prune", "pipeline"} }, `compaction.pipeline[1] = "pipeline"`},
		{"empty pipeline", func(c *Config) { c.Compaction.Strategy, c.Compaction.Pipeline = "pipeline", nil }, "compaction.pipeline"},
		{"counter kind", func(c *Config) { c.Compaction.Counter.Kind = "bpe" }, `compaction.counter.kind = "bpe"`},
		{"encoding", func(c *Config) { c.Compaction.Counter.Kind, c.Compaction.Counter.Encoding = "tiktoken", "p50k" }, `compaction.counter.encoding = "p50k"`},
		{"retries", func(c *Config) { c.Summarizer.Retries = -1 }, "summarizer.retries = -1"},
		{"input cap", func(c *Config) { c.Compaction.Summarize.MaxSummarizerInputTokens = -5 }, "compaction.summarize.max_summarizer_input_tokens = -5"},
		{"ledger cap", func(c *Config) { c.Compaction.Summarize.Ledger.MaxTokens = -1 }, "compaction.summarize.ledger.max_tokens = -1"},
		{"retry delay", func(c *Config) { c.Summarizer.RetryBaseDelay = 0 }, "summarizer.retry_base_delay"},
		{"attempt timeout", func(c *Config) { c.Summarizer.AttemptTimeout = -1 }, "summarizer.attempt_timeout"},
		{"chars per token", func(c *Config) { c.Compaction.Counter.CharsPerToken = 0 }, "compaction.counter.chars_per_token = 0"},
		{"chars per token tiny", func(c *Config) { c.Compaction.Counter.CharsPerToken = 1e-300 }, "compaction.counter.chars_per_token = 1e-300: must be in [0.1, 100]"},
		{"chars per token huge", func(c *Config) { c.Compaction.Counter.CharsPerToken = 1e300 }, "compaction.counter.chars_per_token = 1e+300: must be in [0.1, 100]"},
		{"image charge huge", func(c *Config) { c.Compaction.Counter.TokensPerImage = 1 << 62 }, "compaction.counter.tokens_per_image = 4611686018427387904: must be in [0, 10000000]"},
		{"file charge huge", func(c *Config) { c.Compaction.Counter.TokensPerFile = 10_000_001 }, "compaction.counter.tokens_per_file = 10000001: must be in [0, 10000000]"},
		{"summary tokens", func(c *Config) { c.Compaction.Summarize.ApproximateSummaryTokens = new(0) }, "compaction.summarize.approximate_summary_tokens = 0"},
		{"text cap", func(c *Config) { c.Compaction.Summarize.MaxTextTokens = new(10) }, "compaction.summarize.max_text_tokens = 10"},
		{"summarize keep", func(c *Config) { c.Compaction.Summarize.MinKeepSteps = -1 }, "compaction.summarize.min_keep_steps = -1"},
		{"prune keep", func(c *Config) { c.Compaction.Prune.MinKeepSteps = 0 }, "compaction.prune.min_keep_steps = 0"},
		{"slide note conflict", func(c *Config) { c.Compaction.Slide.NoNote, c.Compaction.Slide.OmissionNote = true, "x" }, "compaction.slide.omission_note"},
		{"max steps", func(c *Config) { c.Agent.MaxSteps = 0 }, "agent.max_steps = 0"},
		{"base url", func(c *Config) { c.Model.BaseURL = "localhost:8080" }, `model.base_url = "localhost:8080"`},
		{"model name", func(c *Config) { c.Model.BaseURL, c.Model.Model = "http://x", "" }, `model.model = ""`},
		{"timeout", func(c *Config) { c.Summarizer.Timeout = 0 }, "summarizer.timeout"},
		{"provider", func(c *Config) { c.Summarizer.Provider = "anthropic" }, `summarizer.provider = "anthropic"`},
		{"openai needs endpoint", func(c *Config) { c.Summarizer.Provider = "openai" }, "summarizer.provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tt.mutate(cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"OPENAI_BASE_URL":     "http://127.0.0.1:8000/v1",
		"OPENAI_API_KEY":      "k-agent",
		"OPENAI_MODEL":        "qwen",
		"SUMMARIZER_MODEL":    "qwen-small",
		"SUMMARIZER_BASE_URL": "", // empty: ignored
	}
	cfg := DefaultConfig()
	cfg.Summarizer.BaseURL = "http://from-file"
	ApplyEnv(cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if cfg.Model.BaseURL != env["OPENAI_BASE_URL"] || cfg.Model.APIKey != "k-agent" || cfg.Model.Model != "qwen" {
		t.Errorf("model = %+v, want the OPENAI_* values", cfg.Model)
	}
	if cfg.Summarizer.Model != "qwen-small" || cfg.Summarizer.BaseURL != "http://from-file" {
		t.Errorf("summarizer = %+v, want SUMMARIZER_MODEL applied and the empty SUMMARIZER_BASE_URL ignored", cfg.Summarizer)
	}
}

func TestSummarizerEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		mutate     func(*Config)
		wantOnline bool
		wantURL    string
		wantKey    string
		wantModel  string
	}{
		{"nothing configured: offline", func(*Config) {}, false, "", "", ""},
		{"inherits the agent endpoint", func(c *Config) { c.Model.BaseURL, c.Model.APIKey = "http://a", "ka" }, true, "http://a", "ka", "gpt-4o-mini"},
		{"own endpoint keeps own key", func(c *Config) {
			c.Model.BaseURL, c.Model.APIKey = "http://a", "ka"
			c.Summarizer.BaseURL, c.Summarizer.Model = "http://s", "small"
		}, true, "http://s", "", "small"},
		{"offline wins", func(c *Config) { c.Model.BaseURL, c.Summarizer.Provider = "http://a", "offline" }, false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tt.mutate(cfg)
			ep, online := cfg.SummarizerEndpoint()
			if online != tt.wantOnline || ep.BaseURL != tt.wantURL || ep.APIKey != tt.wantKey || (online && ep.Model != tt.wantModel) {
				t.Errorf("SummarizerEndpoint() = %+v, %v; want %v %q %q %q", ep, online, tt.wantOnline, tt.wantURL, tt.wantKey, tt.wantModel)
			}
		})
	}
}

func TestLoadWithEnvReadsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("compaction:\n  compact_at: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := LoadWithEnv(path)
	if err == nil || !strings.Contains(err.Error(), "compaction.compact_at = 2") {
		t.Fatalf("LoadWithEnv = %v, want the validation error naming compaction.compact_at", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

// TestLoadIntoReportsEveryProblem checks that one file's decode errors (a
// bare-number duration, an unknown key, a wrong type) do not hide its
// validation errors, and that each line says where the bad value came from:
// the file, or the environment variable that set it.
func TestLoadIntoReportsEveryProblem(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.yaml")
	body := "model:\n  timeout: 60\ncompaction:\n  compact_at: 2\n  context_windw: 10\n  context_window: lots\nagent:\n  max_steps: 0\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvSummarizerBaseURL: "localhost:9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg := DefaultConfig()
	err := LoadInto(path, cfg, cfg, lookup)
	if err == nil {
		t.Fatal("LoadInto accepted a file with five problems")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{ // unknown keys, values of the wrong type, then Validate's checks in its order
		path + ": config: unknown key compaction.context_windw (line 5)",
		path + ": config: model.timeout (line 2)",
		path + ": config: compaction.context_window (line 6)",
		EnvSummarizerBaseURL + `: config: summarizer.base_url = "localhost:9"`,
		path + ": config: compaction.compact_at = 2",
		path + ": config: agent.max_steps = 0",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start %q", i+1, lines[i], w)
		}
	}
	// A file that is not YAML stops there: nothing to validate.
	if err := os.WriteFile(path, []byte("compaction: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = LoadInto(path, DefaultConfig(), DefaultConfig(), lookup)
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.HasPrefix(err.Error(), path+": config:") {
		t.Errorf("non-YAML file: %v", err)
	}
	// An application's own struct embedding the Config decodes through it.
	type app struct {
		Config `yaml:",inline"`
		Extra  string `yaml:"extra"`
	}
	if err := os.WriteFile(path, []byte("extra: x\ncompaction:\n  context_window: 9000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &app{Config: *DefaultConfig()}
	if err := LoadInto(path, a, &a.Config, lookup); err == nil || !strings.Contains(err.Error(), EnvSummarizerBaseURL+": ") {
		t.Errorf("embedded: %v, want only the environment's problem", err)
	}
	if a.Extra != "x" || a.Compaction.ContextWindow != 9000 {
		t.Errorf("embedded: decoded %+v", a)
	}
}

func TestPrepareAtConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		prepareAt float64
		wantErr   bool
	}{
		{"default", DefaultConfig().Compaction.PrepareAt, false},
		{"off", 0, false},
		{"at compact_to", 0.4, true},
		{"at compact_at", 0.7, true},
		{"negative", -0.1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			c.Compaction.PrepareAt = tt.prepareAt
			err := c.Validate()
			if tt.wantErr != (err != nil) {
				t.Fatalf("prepare_at %v: Validate() = %v, want error %v", tt.prepareAt, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "compaction.prepare_at") {
				t.Fatalf("error %q does not name compaction.prepare_at", err)
			}
		})
	}
}

// aliasBomb is a config of about 9 KB whose aliases nest four deep: the
// root repeats "compaction: *p" n times, each *p repeats "summarize: *s" n
// times, each *s repeats "ledger: *l" n times and each *l holds n keys, so
// following every alias visits n⁴ nodes (655 million for n = 160).
func aliasBomb(n int) string {
	l := "{" + strings.Repeat("enabled: true, ", n-1) + "enabled: true}"
	s := "{ledger: &l " + l + strings.Repeat(", ledger: *l", n-1) + "}"
	p := "{summarize: &s " + s + strings.Repeat(", summarize: *s", n-1) + "}"
	return "compaction: &p " + p + "\n" + strings.Repeat("compaction: *p\n", n-1)
}

// TestLoadDoesNotExpandAliases: the key index that names keys in errors must
// not follow aliases, or an alias bomb keeps LoadWithEnv busy for good (it
// did not return in minutes) where the YAML decoder rejects the file at once.
// An ordinary alias still loads.
func TestLoadDoesNotExpandAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		yaml    string
		wantErr string // "" means it loads
	}{
		{"alias bomb", aliasBomb(160), `mapping key "compaction" already defined`},
		{"plain alias", "summarizer:\n  timeout: &t 31s\nmodel:\n  timeout: *t\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadWithEnv(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadWithEnv = %v, want the decoder's error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Model.Timeout.Std() != 31*time.Second {
				t.Errorf("model.timeout = %v, want the aliased 31s", cfg.Model.Timeout)
			}
		})
	}
}
