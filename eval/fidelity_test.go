package eval

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

var update = flag.Bool("update", false, "rewrite the table in docs/fidelity.md")

const (
	corpusSeed = 2026
	corpusSize = 20
	tableStart = "<!-- fidelity table: start -->"
	tableEnd   = "<!-- fidelity table: end -->"
)

// tunedLedger is a cap found for the corpus's 16k window at which no round
// drops an identifier, with a margin: 2496 tokens is the measured threshold
// (2432 drops 8), and markers need MaxRemembered >= 350 to keep every folded
// summary's identifiers (300 loses 1, the default 200 loses 6).
var tunedLedger = compaction.LedgerConfig{MaxTokens: 3072, MaxRemembered: 400}

// evalCompactor is the summarization compactor with the extractive model and
// the given ledger configuration (nil: defaults), and the round counter
// wired to it.
func evalCompactor(t *testing.T, ledger *compaction.LedgerConfig) (compaction.Compactor, *RoundCounter) {
	t.Helper()
	model, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := &RoundCounter{}
	c, err := compaction.NewSummarizationCompactor(context.Background(), &compaction.SummarizationConfig{
		ChatModel: cutAtMaxTokens{model, compaction.DefaultCounter()}, OnRound: rc.Observe, Ledger: ledger,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, rc
}

// runCorpus runs the fidelity corpus through a compactor with the ledger
// configured as given.
func runCorpus(t *testing.T, ledger *compaction.LedgerConfig, hook bool) []Result {
	t.Helper()
	c, rc := evalCompactor(t, ledger)
	results, err := Run(context.Background(), Config{Compactor: c, Rounds: rc.Totals, Hook: hook}, Corpus(corpusSeed, corpusSize))
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// checkCompaction asserts what every configuration must achieve: each
// trajectory outgrows the window, is compacted below the trigger without a
// failed round (one refused as not smaller is planned around, as the
// compactor's defaults do, and counted), and the counts are consistent.
func checkCompaction(t *testing.T, label string, results []Result) {
	t.Helper()
	trigger := int(16000 * 0.7)
	for _, r := range results {
		if r.Compactions == 0 || r.Rounds == 0 || r.FailedRounds != 0 {
			t.Errorf("%s %s: %d compactions, %d rounds, %d failed; every trajectory outgrows the window", label, r.Name, r.Compactions, r.Rounds, r.FailedRounds)
		}
		if r.TokensFinal >= trigger || r.TokensFinal >= r.TokensFull {
			t.Errorf("%s %s: final %d tokens (uncompacted %d, trigger %d)", label, r.Name, r.TokensFinal, r.TokensFull, trigger)
		}
		if r.FactsReplaced == 0 || r.IDsReplaced == 0 || r.LedgerIDs == 0 {
			t.Errorf("%s %s: nothing planted was replaced: %+v", label, r.Name, r)
		}
		if r.FactsSurvived > r.FactsReplaced || r.IDsSurvived > r.IDsReplaced || r.LedgerIDsKept > r.LedgerIDs {
			t.Errorf("%s %s: more kept than replaced: %+v", label, r.Name, r)
		}
		s := r.Ledger
		if s.Survived+s.Appended+s.Dropped != s.Found {
			t.Errorf("%s %s: every identifier a round found is kept, appended or dropped: %+v", label, r.Name, s)
		}
	}
}

func TestFidelity(t *testing.T) {
	t.Parallel()
	configs := []struct {
		label  string
		ledger *compaction.LedgerConfig
		hook   bool
	}{
		{"ledger off", &compaction.LedgerConfig{Disabled: true}, false},
		{"ledger default (a quarter of the target, 200 remembered)", nil, false},
		{"ledger tuned (3072 tokens, 400 remembered)", &tunedLedger, false},
		// The defaults as an agent meets them: through the hook, whose
		// compactions go deep (compaction.Report.Deep).
		{"ledger default, through the hook (deep compactions)", nil, true},
	}
	runs := make([]Labeled, len(configs))
	for i, cfg := range configs {
		runs[i] = Labeled{Label: cfg.label, Results: runCorpus(t, cfg.ledger, cfg.hook)}
		checkCompaction(t, cfg.label, runs[i].Results)
	}
	// Issue 23 holds identifiers kept at 95 % or more under the defaults.
	if tot := Total(runs[3].Results); 100*tot.LedgerIDsKept < 95*tot.LedgerIDs {
		t.Errorf("%s: %d of %d identifiers kept, below 95 %%", runs[3].Label, tot.LedgerIDsKept, tot.LedgerIDs)
	}
	if off := Total(runs[0].Results).Ledger; off != (compaction.IdentifierStats{}) {
		t.Errorf("the disabled ledger reported work: %+v", off)
	}
	for _, run := range runs[1:] {
		if tot := Total(run.Results); tot.Ledger.Found == 0 || tot.LedgerIDsKept <= Total(runs[0].Results).LedgerIDsKept {
			t.Errorf("%s: the ledger found nothing or kept no more than without it: %+v", run.Label, tot)
		}
	}
	table := "### Corpus totals\n\n" + Summary(runs) +
		"\n### Cost of marking tool text as data\n\n" + Marking(runs) +
		"\n### Facts kept, by kind\n\n" + Kinds(runs) +
		"\n### Per trajectory, ledger tuned\n\n" + Table(runs[2].Results) +
		"\n### Per trajectory, ledger off\n\n" + Table(runs[0].Results)
	t.Log("\n" + table)
	if *update {
		writeTable(t, table)
	}
}

// TestLedgerKeepsEveryIdentifier is issue 6's done criterion: with the ledger
// on, within its cap, every identifier the ledger extracts from a message
// that compaction replaced (its default extractors over the message as the
// ledger renders it) is verbatim in the final conversation, and no round
// had to drop one, while compaction still saves tokens.
func TestLedgerKeepsEveryIdentifier(t *testing.T) {
	t.Parallel()
	results := runCorpus(t, &tunedLedger, false)
	checkCompaction(t, "tuned", results)
	for _, r := range results {
		if r.LedgerIDsKept != r.LedgerIDs {
			t.Errorf("%s: %d of %d identifiers from replaced messages survive", r.Name, r.LedgerIDsKept, r.LedgerIDs)
		}
		if r.Ledger.Dropped != 0 {
			t.Errorf("%s: rounds dropped %d identifiers under MaxTokens %d", r.Name, r.Ledger.Dropped, tunedLedger.MaxTokens)
		}
		if r.Ledger.Appended == 0 {
			t.Errorf("%s: the summaries kept everything, so the ledger was not exercised", r.Name)
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	corpus := Corpus(7, 3)
	var runs [2][]Result
	for i := range runs {
		c, rc := evalCompactor(t, &tunedLedger)
		res, err := Run(context.Background(), Config{Compactor: c, Rounds: rc.Totals}, corpus)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = res
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Errorf("two runs differ:\n%+v\n%+v", runs[0], runs[1])
	}
	if !reflect.DeepEqual(Corpus(7, 3)[2].Facts, corpus[2].Facts) {
		t.Error("Corpus is not deterministic")
	}
}

func TestCorpusPlantsFactsVerbatim(t *testing.T) {
	t.Parallel()
	for _, tr := range Corpus(corpusSeed, corpusSize) {
		if len(tr.Steps) < 61 {
			t.Errorf("%s has %d steps", tr.Name, len(tr.Steps)-1)
		}
		kinds := map[FactKind]bool{}
		for _, f := range tr.Facts {
			kinds[f.Kind] = true
			if !strings.Contains(tr.Messages[f.Message].Content, f.Value) {
				t.Errorf("%s: fact %q is not in message %d", tr.Name, f.Value, f.Message)
			}
		}
		if len(kinds) != 6 {
			t.Errorf("%s plants only %v", tr.Name, kinds)
		}
	}
}

func writeTable(t *testing.T, table string) {
	t.Helper()
	path := filepath.Join("..", "docs", "fidelity.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the table markers", path)
	}
	s = s[:i+len(tableStart)] + "\n" + table + s[j:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
