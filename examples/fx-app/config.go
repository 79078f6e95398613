package main

import (
	_ "embed"
	"fmt"
	"time"

	compactfx "github.com/einocompact/einocompact/integration/fx"
)

//go:embed default.yaml
var defaultYAML []byte

// appConfig is the module's configuration plus the demo's own section, in
// one YAML file.
type appConfig struct {
	compactfx.Config `yaml:",inline"`
	// Demo configures what the app works on.
	Demo demoConfig `yaml:"demo"`

	// summarizerLatency and modelLatency come from --summarizer-latency
	// and --model-latency: how long each summarizer call and each reply
	// of the replayed model take, to show prepared compaction at work.
	summarizerLatency, modelLatency time.Duration
}

// demoConfig says where the task comes from.
type demoConfig struct {
	// Workspace is a directory the tools read. Default "": the bundled
	// sample workspace embedded in the binary.
	Workspace string `yaml:"workspace"`
	// Trajectory is the run replayed offline: a file --record wrote from a
	// live run, or one written by hand. Default "": the bundled scripted
	// trajectory of the default task, written for the demo.
	Trajectory string `yaml:"trajectory"`
	// Task is the user's request. Default "": the trajectory's task, which
	// offline replay requires.
	Task string `yaml:"task"`
}

// loadConfig layers the module defaults, the embedded demo defaults, the
// file at path (when not empty) and the environment, then validates.
func loadConfig(path string, lookup func(string) (string, bool)) (*appConfig, error) {
	cfg := &appConfig{Config: *compactfx.DefaultConfig()}
	if err := compactfx.DecodeStrict(defaultYAML, cfg); err != nil {
		return nil, fmt.Errorf("embedded default.yaml: %w", err)
	}
	if err := compactfx.LoadInto(path, cfg, &cfg.Config, lookup); err != nil {
		return nil, err
	}
	return cfg, nil
}

// online reports whether the agent talks to a real endpoint.
func (c *appConfig) online() bool { return c.Model.BaseURL != "" }
