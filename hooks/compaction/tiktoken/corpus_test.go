package tiktoken

import (
	"testing"

	"github.com/einocompact/einocompact/eval"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestApproximateCounterErrorOnFidelityCorpus measures the approximate
// counter against o200k_base on the first trajectories of the fidelity corpus
// (eval.Corpus(2026, n), the one docs/fidelity.md uses): long agent runs
// whose tool results are code, logs and test output.
func TestApproximateCounterErrorOnFidelityCorpus(t *testing.T) {
	t.Parallel()
	approx := compaction.DefaultCounter()
	exact := tkNew(t, nil)
	var sumExact, sumApprox int
	for _, tr := range eval.Corpus(2026, 4) {
		e := tkMeasure(t, exact, approx, tr.Messages)
		sumExact += e.exact
		sumApprox += e.approx
		t.Logf("%s: %d messages, exact %d, approximate %d, error %+.1f%%, per-message mean |error| %.1f%%, max %.1f%%",
			tr.Name, len(tr.Messages), e.exact, e.approx, 100*e.total, 100*e.meanAbs, 100*e.maxAbs)
	}
	total := float64(sumApprox-sumExact) / float64(sumExact)
	t.Logf("all: exact %d, approximate %d, error %+.1f%%", sumExact, sumApprox, 100*total)
	if total < -0.5 || total > 0.5 {
		t.Errorf("the approximate counter is off by %+.1f%% on the corpus", 100*total)
	}
}
