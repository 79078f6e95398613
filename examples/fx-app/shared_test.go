package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	compactfx "github.com/einocompact/einocompact/integration/fx"
	"github.com/einocompact/einocompact/internal/redistest"
)

// Two runs of the demo share compactions through a real redis-server: the
// second applies what the first wrote. It replaced the same messages, so
// its report counts as many, and it says where they came from (issue 30
// item 9: counted by pointer, every message decoded from the store counted
// as replaced, 56 where the first run said 28).
func TestSharedCompactionsAreCountedByContent(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	runOnce := func() *reporter {
		cfg, err := loadConfig("", noEnv)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Store.Kind, cfg.Store.Addr = compactfx.StoreRedis, srv.Addr()
		_, rep, err := fxappRun(t, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first, second := runOnce(), runOnce()
	if len(first.compactions) == 0 || len(first.compactions) != len(second.compactions) {
		t.Fatalf("%d then %d compactions; want the same, at least one", len(first.compactions), len(second.compactions))
	}
	shared := 0
	for i, c := range second.compactions {
		w := first.compactions[i]
		if c.shared {
			shared++
		}
		if w.shared {
			t.Errorf("compaction %d of the first run is marked shared; the store was empty", i+1)
		}
		if c.beforeStep != w.beforeStep || c.msgsBefore != w.msgsBefore || c.msgsAfter != w.msgsAfter {
			t.Errorf("compaction %d: before step %d, %d -> %d messages; the first run: step %d, %d -> %d",
				i+1, c.beforeStep, c.msgsBefore, c.msgsAfter, w.beforeStep, w.msgsBefore, w.msgsAfter)
		}
		if c.replaced != w.replaced || c.replaced != c.msgsBefore-c.msgsAfter+1 {
			t.Errorf("compaction %d: %d messages replaced (%d -> %d); the run that wrote it replaced %d",
				i+1, c.replaced, c.msgsBefore, c.msgsAfter, w.replaced)
		}
	}
	if shared == 0 {
		t.Fatal("the second run applied no compaction from the store: the test proves nothing")
	}

	// A third run, as main runs it, says so wherever it shows one: the
	// compaction lines and the table, the hook's log line, the inspector.
	config := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(config, []byte("store:\n  kind: redis\n  addr: "+srv.Addr()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, page := demoOutputs(t, "--config", config)
	for _, c := range []struct{ where, text, want string }{
		{"the compaction lines", stdout, " (shared)\n"},
		{"the summary table", stdout, " shared    "},
		{"the log", stderr, `msg="compaction applied" step=`},
		{"the log", stderr, " shared=true "},
		{"the inspector's rows", page, `<span class="kind">prepared, shared</span>`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s do not show %q", c.where, c.want)
		}
	}
}
