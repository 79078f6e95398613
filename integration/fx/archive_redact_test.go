package compactfx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestModuleArchiveRedact: with compaction.archive.redact, an API key in
// an archived tool result never reaches the archive's directory and recall
// reads it masked; without it (the default) the key is kept verbatim.
func TestModuleArchiveRedact(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-7f3a9c1e5b2d4f6a8c0e"
	for _, redact := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.Compaction.Archive.Kind, cfg.Compaction.Archive.Dir = ArchiveFile, t.TempDir()
		cfg.Compaction.Archive.Redact = redact
		var arc moduleArchive
		app := fxtest.New(t, fx.NopLogger, Module(cfg), fx.Populate(&arc))
		app.RequireStart()
		conv, _ := compaction.ArchiveConversation([]*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("task")})
		ref, err := arc.Put(context.Background(), conv, []*schema.Message{schema.ToolMessage("export OPENAI_API_KEY="+key, "c1")})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(cfg.Compaction.Archive.Dir, conv+".arc"))
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := arc.Get(context.Background(), ref)
		if err != nil || len(got) != 1 {
			t.Fatalf("Get: %v, %v", got, err)
		}
		if strings.Contains(string(raw), key) == redact || strings.Contains(got[0].Content, key) == redact {
			t.Fatalf("redact %v: the key on disk %v, recalled %q", redact, strings.Contains(string(raw), key), got[0].Content)
		}
		app.RequireStop()
	}
}
