package compactfx

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// docs/configuration.md must list every key, so the table cannot drift from
// the structs.
func TestConfigurationDocListsEveryKey(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	keys := configLeafKeys()
	if len(keys) < 30 {
		t.Fatalf("found only %d keys; the walk is broken", len(keys))
	}
	for _, k := range keys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/configuration.md does not list `%s`", k)
		}
	}
	for _, env := range []string{EnvModelBaseURL, EnvModelAPIKey, EnvModelName, EnvSummarizerBaseURL, EnvSummarizerAPIKey, EnvSummarizerModel} {
		if !strings.Contains(string(doc), "`"+env+"`") {
			t.Errorf("docs/configuration.md does not list `%s`", env)
		}
	}
}

// The example file in docs/configuration.md must load and validate.
func TestConfigurationDocExampleLoads(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	if !ok {
		t.Fatal("no yaml block in docs/configuration.md")
	}
	block, _, _ := strings.Cut(rest, "```")
	cfg, err := Parse([]byte(block))
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
