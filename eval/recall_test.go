package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

const (
	recallStart = "<!-- recall probes: start -->"
	recallEnd   = "<!-- recall probes: end -->"
)

// TestRecallProbes runs the corpus through the hook with a FileArchive and
// probes every fact of a replaced message: nothing replaced is lost, so the
// final conversation or the recall tool answers every probe, read blind or
// by search, and searching returns fewer tokens than reading; the probes
// the final conversation answers alone are the facts the run counts as
// kept.
func TestRecallProbes(t *testing.T) {
	t.Parallel()
	configs := []struct {
		label  string
		ledger *compaction.LedgerConfig
	}{
		{"ledger off, through the hook, with the archive", &compaction.LedgerConfig{Disabled: true}},
		{"ledger default, through the hook, with the archive", nil},
	}
	runs := make([]Labeled, len(configs))
	for i, cfg := range configs {
		archive, err := compaction.NewFileArchive(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c, rc := evalCompactor(t, cfg.ledger)
		results, err := Run(context.Background(), Config{Compactor: c, Rounds: rc.Totals, Hook: true, Archive: archive}, Corpus(corpusSeed, corpusSize))
		if err != nil {
			t.Fatal(err)
		}
		checkCompaction(t, cfg.label, results)
		runs[i] = Labeled{Label: cfg.label, Results: results}
		for _, r := range results {
			p := r.Recall
			if p.Probes != r.FactsReplaced || p.FromSummary != r.FactsSurvived {
				t.Errorf("%s %s: %d probes, %d from the summary; %d facts replaced, %d kept", cfg.label, r.Name, p.Probes, p.FromSummary, r.FactsReplaced, r.FactsSurvived)
			}
			for _, way := range []struct {
				name string
				cost RecallCost
			}{{"read", p.Read}, {"search", p.Search}} {
				c := way.cost
				if p.FromSummary+c.Recalled != p.Probes {
					t.Errorf("%s %s, %s: %d of %d probes answered; the archive lost %d facts", cfg.label, r.Name, way.name, p.FromSummary+c.Recalled, p.Probes, p.Probes-p.FromSummary-c.Recalled)
				}
				if c.Recalled > 0 && (c.Calls < c.Recalled || c.Tokens <= 0) {
					t.Errorf("%s %s, %s: %d recalled in %d calls, %d tokens", cfg.label, r.Name, way.name, c.Recalled, c.Calls, c.Tokens)
				}
			}
			// A search returns part of what the pages hold.
			if p.Search.Tokens >= p.Read.Tokens && p.Read.Recalled > 0 {
				t.Errorf("%s %s: searching cost %d tokens, reading %d", cfg.label, r.Name, p.Search.Tokens, p.Read.Tokens)
			}
		}
	}
	if off := Total(runs[0].Results).Recall; off.Read.Recalled == 0 {
		t.Errorf("ledger off: the summaries answered every probe, so recall was not exercised: %+v", off)
	}
	table := RecallTable(runs)
	t.Log("\n" + table)
	if *update {
		writeBlock(t, recallStart, recallEnd, table)
	}
}

// An archive without the hook is refused: only the hook archives.
func TestRunArchiveNeedsHook(t *testing.T) {
	t.Parallel()
	archive, err := compaction.NewFileArchive(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := evalCompactor(t, nil)
	_, err = Run(context.Background(), Config{Compactor: c, Archive: archive}, Corpus(1, 1))
	if err == nil || !strings.Contains(err.Error(), "Config.Archive needs Config.Hook") {
		t.Fatalf("err = %v", err)
	}
}

// writeBlock replaces the text between start and end in docs/fidelity.md.
func writeBlock(t *testing.T, start, end, body string) {
	t.Helper()
	path := filepath.Join("..", "docs", "fidelity.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %s ... %s", path, start, end)
	}
	s = s[:i+len(start)] + "\n" + body + s[j:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
