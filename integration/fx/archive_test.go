package compactfx

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestModuleArchive: compaction.archive.kind file gives the registry the
// recall tool; none (the default) gives it nothing.
func TestModuleArchive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind  string
		tools int
	}{{ArchiveNone, 0}, {ArchiveFile, 1}} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Compaction.Archive.Kind = tc.kind
			cfg.Compaction.Archive.Dir = t.TempDir()
			var reg *hooks.Registry
			fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&reg)).RequireStart().RequireStop()
			tools, err := reg.ProvidedTools(context.Background())
			if err != nil || len(tools) != tc.tools {
				t.Fatalf("provided tools %v, %v; want %d", tools, err, tc.tools)
			}
			for _, tl := range tools {
				if info, err := tl.Info(context.Background()); err != nil || info.Name != compaction.RecallToolName {
					t.Fatalf("provided tool %v, %v", info, err)
				}
			}
		})
	}
}

func TestArchiveConfigValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*ArchiveConfig)
		want string
	}{
		{"unknown kind", func(a *ArchiveConfig) { a.Kind = "s3" }, `compaction.archive.kind = "s3"`},
		{"redis", func(a *ArchiveConfig) { a.Kind = ArchiveRedis }, `compaction.archive.kind = "redis"`},
		{"file without dir", func(a *ArchiveConfig) { a.Kind = ArchiveFile }, `compaction.archive.dir = ""`},
		{"zero ttl", func(a *ArchiveConfig) { a.TTL = 0 }, `compaction.archive.ttl = "0s"`},
		{"zero cap", func(a *ArchiveConfig) { a.MaxBytes = 0 }, `compaction.archive.max_bytes = 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tc.edit(&cfg.Compaction.Archive)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
