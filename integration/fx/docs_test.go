package compactfx

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// configurationDoc returns the text of docs/configuration.md.
func configurationDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// docs/configuration.md must list every key, so the table cannot drift from
// the structs.
func TestConfigurationDocListsEveryKey(t *testing.T) {
	t.Parallel()
	doc := configurationDoc(t)
	keys := configLeafKeys()
	if len(keys) < 30 {
		t.Fatalf("found only %d keys; the walk is broken", len(keys))
	}
	for _, k := range keys {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/configuration.md does not list `%s`", k)
		}
	}
	for _, env := range []string{EnvModelBaseURL, EnvModelAPIKey, EnvModelName, EnvSummarizerBaseURL, EnvSummarizerAPIKey, EnvSummarizerModel} {
		if !strings.Contains(doc, "`"+env+"`") {
			t.Errorf("docs/configuration.md does not list `%s`", env)
		}
	}
}

// The example file in docs/configuration.md must load and validate.
func TestConfigurationDocExampleLoads(t *testing.T) {
	t.Parallel()
	doc := configurationDoc(t)
	_, example, _ := strings.Cut(doc, "## An example file")
	_, rest, ok := strings.Cut(example, "```yaml\n")
	if !ok {
		t.Fatal(`no yaml block under "An example file" in docs/configuration.md`)
	}
	block, _, _ := strings.Cut(rest, "```")
	cfg, err := parse([]byte(block))
	if err != nil {
		t.Fatalf("the documented example does not parse: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the documented example does not validate: %v", err)
	}
	if cfg.Compaction.Strategy != StrategyPipeline || cfg.Compaction.ContextWindow != 32768 {
		t.Errorf("example decoded to %+v", cfg.Compaction)
	}
}

// configLeafKeys lists the dotted YAML key of every setting of Config (the
// leaves: nested sections are walked, not listed).
func configLeafKeys() []string {
	var keys []string
	var walk func(reflect.Type, string)
	walk = func(rt reflect.Type, prefix string) {
		for name, ft := range yamlFields(rt) {
			key := join(prefix, name)
			if ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(unmarshalerType) {
				walk(ft, key)
				continue
			}
			keys = append(keys, key)
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return keys
}

// The bad file and the errors docs/configuration.md shows for it are what
// LoadInto gives.
func TestConfigurationDocErrorExample(t *testing.T) {
	t.Parallel()
	doc := configurationDoc(t)
	_, rest, _ := strings.Cut(doc, "This `app.yaml`")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	file, rest, _ := strings.Cut(rest, "```")
	_, rest, _ = strings.Cut(rest, "```text\n")
	want, _, _ := strings.Cut(rest, "```")
	if file == "" || want == "" {
		t.Fatal("the error example is missing from docs/configuration.md")
	}
	path := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	err := LoadInto(path, cfg, cfg, func(k string) (string, bool) { return "localhost:9", k == EnvSummarizerBaseURL })
	if err == nil {
		t.Fatal("the documented bad file loaded")
	}
	if got := strings.ReplaceAll(err.Error(), path, "app.yaml"); got != strings.TrimSpace(want) {
		t.Errorf("docs show\n%s\nLoadInto gives\n%s", want, got)
	}
}
