package compactfx

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	goredis "github.com/redis/go-redis/v9"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redistest"
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
		{"redis without store.addr", func(a *ArchiveConfig) { a.Kind = ArchiveRedis }, `store.addr = ""`},
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

// TestModuleArchiveRedis: compaction.archive.kind redis (with store.kind
// none) archives in the Redis store.addr names, under store.key_prefix,
// readable by another application's archive on the same Redis, and the
// registry offers the recall tool.
func TestModuleArchiveRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	newApp := func() (*fxtest.App, moduleArchive, *hooks.Registry) {
		cfg := DefaultConfig()
		cfg.Compaction.Archive.Kind = ArchiveRedis
		cfg.Store.Addr, cfg.Store.KeyPrefix = srv.Addr(), "fxarc:"
		var arc moduleArchive
		var reg *hooks.Registry
		app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&arc, &reg))
		app.RequireStart()
		return app, arc, reg
	}
	appA, arcA, reg := newApp()
	tools, err := reg.ProvidedTools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatalf("provided tools %v, %v; want the recall tool", tools, err)
	}
	conv, _ := compaction.ArchiveConversation([]*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")})
	ref, err := arcA.Put(context.Background(), conv, []*schema.Message{schema.ToolMessage("exact output", "c1")})
	if err != nil {
		t.Fatal(err)
	}
	appA.RequireStop()
	appB, arcB, _ := newApp()
	defer appB.RequireStop()
	if _, got, err := arcB.Get(context.Background(), ref); err != nil || len(got) != 1 || got[0].Content != "exact output" {
		t.Fatalf("another application reads %v, %v", got, err)
	}
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr()})
	defer c.Close()
	if keys := c.Keys(context.Background(), "fxarc:{arc}:"+conv).Val(); len(keys) != 1 {
		t.Fatalf("keys under store.key_prefix: %v", keys)
	}
}
