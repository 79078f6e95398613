package compactfx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/samber/lo"
	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path onto DefaultConfig. It does not apply the
// environment or validate; see LoadWithEnv for the usual sequence. Each
// problem is on its own line, naming the file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := parse(data)
	if err != nil {
		return nil, inFile(path, err)
	}
	return cfg, nil
}

// LoadWithEnv is Load, then ApplyEnv with the process environment, then
// Validate: what an application normally wants. It is LoadInto on
// DefaultConfig, and so reports every problem at once.
func LoadWithEnv(path string) (*Config, error) {
	cfg := DefaultConfig()
	if err := LoadInto(path, cfg, cfg, os.LookupEnv); err != nil {
		return nil, err
	}
	return cfg, nil
}

// LoadInto decodes the YAML file at path onto out with DecodeStrict (no file
// when path is ""), applies the environment to cfg with ApplyEnv (lookup is
// os.LookupEnv in production) and validates cfg. out is cfg itself, or an
// application's struct that embeds the Config cfg points to with
// `yaml:",inline"`; either already holds the defaults.
//
// Every problem is reported at once, one per line: those of decoding the
// file, then those Validate finds in everything that did decode. Each line
// starts with where the bad value came from: the file, or the environment
// variable that set it. Only a file that is not YAML at all stops before
// validation.
func LoadInto(path string, out any, cfg *Config, lookup func(string) (string, bool)) error {
	var decodeErr error
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		var parsed bool
		if parsed, decodeErr = decodeStrict(data, out); !parsed {
			return inFile(path, decodeErr)
		}
	}
	fromEnv := applyEnv(cfg, lookup)
	errs := []error{inFile(path, decodeErr)}
	for _, e := range unjoin(cfg.Validate()) {
		var se *settingError
		switch {
		case errors.As(e, &se) && fromEnv[se.key] != "":
			errs = append(errs, fmt.Errorf("%s: %w", fromEnv[se.key], e))
		default:
			errs = append(errs, inFile(path, e))
		}
	}
	return errors.Join(errs...)
}

// inFile prefixes each of the joined errors in err with path, so every line
// names the file; nil stays nil, and so does an empty path's prefix.
func inFile(path string, err error) error {
	if err == nil || path == "" {
		return err
	}
	return errors.Join(lo.Map(unjoin(err), func(e error, _ int) error { return fmt.Errorf("%s: %w", path, e) })...)
}

// unjoin returns the errors errors.Join put together in err, or err alone.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return slices.Clone(j.Unwrap())
	}
	return []error{err}
}

// parse decodes YAML onto DefaultConfig. Empty input gives the defaults.
func parse(data []byte) (*Config, error) {
	cfg := DefaultConfig()
	if err := DecodeStrict(data, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// DecodeStrict decodes one YAML document onto out, which already holds the
// defaults. Unknown keys are errors (the decoder runs with KnownFields), and
// every error names the dotted key path and line, and for unknown keys the
// closest known key. All the problems of the document are reported, joined;
// on error, out holds every value that did decode. Applications that extend
// Config embed it with `yaml:",inline"` in their own struct and decode that
// with DecodeStrict, or with LoadInto.
func DecodeStrict(data []byte, out any) error {
	_, err := decodeStrict(data, out)
	return err
}

// decodeStrict is DecodeStrict; parsed is false when data is not YAML at
// all, so nothing was decoded.
func decodeStrict(data []byte, out any) (parsed bool, err error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return false, fmt.Errorf("config: %w", err)
	}
	if root.Kind == 0 {
		return true, nil // empty document: keep the defaults
	}
	keys := newKeyIndex()
	keys.walk(&root, typeOf(out), "")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// The key index has reported the unknown keys already, with a
	// suggestion; the decoder would only repeat them.
	dec.KnownFields(len(keys.unknown) == 0)
	errs := keys.unknown
	err = dec.Decode(out)
	var te *yaml.TypeError
	switch {
	case err == nil || errors.Is(err, io.EOF):
	case errors.As(err, &te):
		for _, msg := range te.Errors {
			errs = append(errs, keys.explain(msg))
		}
	default:
		errs = append(errs, fmt.Errorf("config: %w", err))
	}
	return true, errors.Join(errs...)
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
