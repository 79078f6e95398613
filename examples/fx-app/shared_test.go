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
	type key struct{ step, before, after int }
	wrote := map[key]compactionStat{}
	for i, c := range first.compactions {
		if c.shared {
			t.Errorf("compaction %d of the first run is marked shared; the store was empty", i+1)
		}
		wrote[key{c.beforeStep, c.msgsBefore, c.msgsAfter}] = c
	}
	// Which compactions the second run takes from the store, and whether
	// one it takes leaves the call at the trigger and is followed by its
	// own, depends on when the background work finishes; each shared one
	// is checked against the compaction the first run made at the same
	// step from the same messages.
	matched := 0
	for i, c := range second.compactions {
		if !c.shared {
			continue
		}
		// Each compaction of the demo puts one summary in place of the
		// messages it replaced.
		if c.replaced != c.msgsBefore-c.msgsAfter+1 {
			t.Errorf("compaction %d (shared): %d messages replaced (%d -> %d messages, one summary put in)", i+1, c.replaced, c.msgsBefore, c.msgsAfter)
		}
		w, ok := wrote[key{c.beforeStep, c.msgsBefore, c.msgsAfter}]
		if !ok {
			continue
		}
		matched++
		if c.replaced != w.replaced {
			t.Errorf("compaction %d (shared) before step %d: %d messages replaced; the run that wrote it replaced %d", i+1, c.beforeStep, c.replaced, w.replaced)
		}
	}
	if matched == 0 {
		t.Fatal("the second run applied no compaction the first wrote: the test proves nothing")
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
