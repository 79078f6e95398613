package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config file with a decode error and a validation error reports both,
// each naming the file, as docs/configuration.md promises.
func TestLoadConfigReportsEveryProblemNamingTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("model:\n  timeout: 60\ncompaction:\n  compact_at: 2\ndemo:\n  task: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadConfig(path, noEnv)
	if err == nil {
		t.Fatal("loadConfig accepted a bare-number timeout and compact_at 2")
	}
	for _, want := range []string{path + ": config: model.timeout (line 2)", path + ": config: compaction.compact_at = 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
