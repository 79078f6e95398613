package compactfx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that moves compact_to or compact_at past the default prepare_at,
// without writing prepare_at, loads with a prepare_at midway between them;
// one that writes prepare_at keeps it, and a bad one is named.
func TestPrepareAtFitsTheFilesFractions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		yaml    string
		want    float64
		wantErr string
	}{
		{"defaults", "compaction:\n  context_window: 8000\n", DefaultPrepareAt, ""},
		{"compact_to raised", "compaction:\n  compact_to: 0.5\n", (0.5 + 0.7) / 2, ""},
		{"compact_at lowered", "compaction:\n  compact_at: 0.42\n  compact_to: 0.3\n", (0.3 + 0.42) / 2, ""},
		{"default still fits", "compaction:\n  compact_to: 0.3\n", DefaultPrepareAt, ""},
		{"written and fits", "compaction:\n  compact_to: 0.5\n  prepare_at: 0.65\n", 0.65, ""},
		{"written off", "compaction:\n  compact_to: 0.5\n  prepare_at: 0\n", 0, ""},
		{"written and does not fit", "compaction:\n  compact_to: 0.5\n  prepare_at: 0.45\n", DefaultPrepareAt, "compaction.prepare_at"},
		{"compact_to itself bad", "compaction:\n  compact_to: 0.8\n", DefaultPrepareAt, "compaction.compact_to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "app.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			err := LoadInto(path, cfg, cfg, func(string) (string, bool) { return "", false })
			if tt.wantErr == "" && err != nil {
				t.Fatalf("LoadInto: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("LoadInto: %v; want an error naming %s", err, tt.wantErr)
			}
			if cfg.Compaction.PrepareAt != tt.want {
				t.Errorf("prepare_at %v; want %v", cfg.Compaction.PrepareAt, tt.want)
			}
			loaded, err := Load(path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if loaded.Compaction.PrepareAt != tt.want {
				t.Errorf("Load: prepare_at %v; want %v", loaded.Compaction.PrepareAt, tt.want)
			}
		})
	}
}

// A Config built in Go keeps the default prepare_at; when that no longer
// fits, Validate says it is the default and how to set it.
func TestPrepareAtDefaultConflictIsNamed(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.Compaction.CompactTo = 0.5
	err := c.Validate()
	if err == nil {
		t.Fatal("a default prepare_at below compact_to validated")
	}
	for _, want := range []string{"compaction.prepare_at", "is the default", "0 to compact synchronously"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to say %q", err, want)
		}
	}
}

// A prepare_at written through an alias or a merge key counts as written.
func TestPrepareAtWrittenThroughAMergeKey(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"base: &b\n  prepare_at: 0.45\ncompaction:\n  <<: *b\n",
		"x: &p 0.45\ncompaction:\n  prepare_at: *p\n",
	} {
		if !writesPrepareAt([]byte(doc)) {
			t.Errorf("%q reads as not writing prepare_at", doc)
		}
	}
	if writesPrepareAt([]byte("compaction:\n  compact_to: 0.5\n")) {
		t.Error("a file without prepare_at reads as writing it")
	}
}
