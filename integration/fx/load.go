package compactfx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path onto DefaultConfig. It does not apply the
// environment or validate; see LoadWithEnv for the usual sequence.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// LoadWithEnv is Load, then ApplyEnv with the process environment, then
// Validate: what an application normally wants.
func LoadWithEnv(path string) (*Config, error) {
	cfg, err := Load(path)
	if err != nil {
		return nil, err
	}
	ApplyEnv(cfg, os.LookupEnv)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Parse decodes YAML onto DefaultConfig. Empty input gives the defaults.
func Parse(data []byte) (*Config, error) {
	cfg := DefaultConfig()
	if err := DecodeStrict(data, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// DecodeStrict decodes one YAML document onto out, which already holds the
// defaults. Unknown keys are errors (the decoder runs with KnownFields), and
// every error names the dotted key path and line, and for unknown keys the
// closest known key. Applications that extend Config embed it with
// `yaml:",inline"` in their own struct and decode that with DecodeStrict.
func DecodeStrict(data []byte, out any) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if root.Kind == 0 {
		return nil // empty document: keep the defaults
	}
	keys := newKeyIndex()
	keys.walk(&root, typeOf(out), "")
	if len(keys.unknown) > 0 {
		return errors.Join(keys.unknown...)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(out)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("config: %w", err)
	}
	errs := make([]error, 0, len(te.Errors))
	for _, msg := range te.Errors {
		errs = append(errs, keys.explain(msg))
	}
	return errors.Join(errs...)
}

var linePrefix = regexp.MustCompile(`^line (\d+): `)

// explain rewrites one of the decoder's "line N: ..." messages to lead with
// the key written on that line.
func (k *keyIndex) explain(msg string) error {
	m := linePrefix.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("config: %s", msg)
	}
	line, _ := strconv.Atoi(m[1])
	rest := strings.TrimPrefix(msg, m[0])
	if key, ok := k.lines[line]; ok {
		return fmt.Errorf("config: %s (line %d): %s", key, line, rest)
	}
	return fmt.Errorf("config: line %d: %s", line, rest)
}
