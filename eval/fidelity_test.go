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

// evalCompactor is the summarization compactor with the extractive model,
// and the round counter wired to it.
func evalCompactor(t *testing.T) (compaction.Compactor, *RoundCounter) {
	t.Helper()
	model, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := &RoundCounter{}
	c, err := compaction.NewSummarizationCompactor(context.Background(), &compaction.SummarizationConfig{
		ChatModel: model, OnRound: rc.Observe, RaiseOnFailure: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, rc
}

func TestFidelity(t *testing.T) {
	t.Parallel()
	c, rc := evalCompactor(t)
	corpus := Corpus(corpusSeed, corpusSize)
	results, err := Run(context.Background(), Config{Compactor: c, Rounds: rc.Counts}, corpus)
	if err != nil {
		t.Fatal(err)
	}
	trigger := int(16000 * 0.7)
	for _, r := range results {
		if r.Compactions == 0 || r.Rounds == 0 || r.FailedRounds != 0 {
			t.Errorf("%s: %d compactions, %d rounds, %d failed; every trajectory outgrows the window", r.Name, r.Compactions, r.Rounds, r.FailedRounds)
		}
		if r.TokensFinal >= trigger || r.TokensFinal >= r.TokensFull {
			t.Errorf("%s: final %d tokens (uncompacted %d, trigger %d)", r.Name, r.TokensFinal, r.TokensFull, trigger)
		}
		if r.FactsReplaced == 0 || r.IDsReplaced == 0 {
			t.Errorf("%s: nothing planted was replaced: %+v", r.Name, r)
		}
		if r.FactsSurvived > r.FactsReplaced || r.IDsSurvived > r.IDsReplaced {
			t.Errorf("%s: more kept than replaced: %+v", r.Name, r)
		}
	}
	table := Table(results)
	t.Log("\n" + table)
	if *update {
		writeTable(t, table)
	}
}

func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	corpus := Corpus(7, 3)
	var runs [2][]Result
	for i := range runs {
		c, rc := evalCompactor(t)
		res, err := Run(context.Background(), Config{Compactor: c, Rounds: rc.Counts}, corpus)
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
