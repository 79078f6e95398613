package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	figSaved    = regexp.MustCompile(`^  prompt tokens, all +~(\d+) est with compaction vs ~(\d+) without \((-?\d+)% saved; (-?\d+)% counting the summarizer's (\d+) tokens too\)`)
	figFailed   = regexp.MustCompile(`^  prompt tokens, all +~(\d+) est with compaction; without it the run would have failed at call (\d+) \(below\)`)
	figNoneFail = regexp.MustCompile(`^  no compaction +not an option here: call (\d+) of (\d+) would have failed with a context-length error \(~(\d+) tokens against the (\d+)-token window\)`)
	figNoneFits = regexp.MustCompile(`^  no compaction +fits the window \(peak ~(\d+) of (\d+) tokens\)`)
	figCompared = regexp.MustCompile(`^  compared with +the same (\d+) replies .* compacted (\d+) times`)
	figBill     = regexp.MustCompile(`^  bill, ([\w -]+?) +this run ~(\d+) = agent calls ~(\d+) \+ summarizer ~(\d+); Eino's middleware ~(\d+) = ~(\d+) \+ ~(\d+) \(this run ([\d.]+)x\)(?:; no compaction ~(\d+) \(this run ([\d.]+)x\))?$`)
)

// totals is what checkTotals read from the demo's output.
type totals struct {
	einoCompactions int
	// bills by price preset: this run, Eino's middleware, no compaction
	// (-1 when not printed).
	this, eino, none map[string]int
	fits             bool
}

// checkTotals checks that the summary's totals follow from the step lines
// and from each other (issue 31 item 4): the prompt-token row sums the
// steps; no compaction is compared with only when every uncompacted call
// fits the window, and otherwise the call named as failing is the first
// whose uncompacted size exceeds it; each bill is its parts' sum and each
// ratio its bills' quotient.
func checkTotals(t *testing.T, stdout string) totals {
	t.Helper()
	h := figHeader.FindStringSubmatch(stdout)
	if h == nil {
		t.Fatal("no compaction header")
	}
	window := atoi(t, h[1])
	var est, shadow, sumTokens, steps, firstOver, overTokens, peak int
	for _, line := range strings.Split(stdout, "\n") {
		if m := figStep.FindStringSubmatch(line); m != nil {
			steps++
			e, u := atoi(t, m[2]), atoi(t, m[3])
			est, shadow, peak = est+e, shadow+u, max(peak, u)
			if u > window && firstOver == 0 {
				firstOver, overTokens = atoi(t, m[1]), u
			}
		}
		if m := figSummarize.FindStringSubmatch(line); m != nil {
			sumTokens = atoi(t, m[1]) + atoi(t, m[2])
		}
	}
	tt := totals{this: map[string]int{}, eino: map[string]int{}, none: map[string]int{}, fits: firstOver == 0}
	var saved, failed, noneFail, noneFits, compared []string
	for _, line := range strings.Split(stdout, "\n") {
		for _, f := range []struct {
			re  *regexp.Regexp
			out *[]string
		}{{figSaved, &saved}, {figFailed, &failed}, {figNoneFail, &noneFail}, {figNoneFits, &noneFits}, {figCompared, &compared}} {
			if m := f.re.FindStringSubmatch(line); m != nil {
				*f.out = m
			}
		}
		m := figBill.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		this, eino := atoi(t, m[2]), atoi(t, m[5])
		tt.this[m[1]], tt.eino[m[1]], tt.none[m[1]] = this, eino, -1
		if d := this - atoi(t, m[3]) - atoi(t, m[4]); d < -1 || d > 1 {
			t.Errorf("bill, %s: this run's ~%d is not its agent calls' ~%s and summarizer's ~%s", m[1], this, m[3], m[4])
		}
		if d := eino - atoi(t, m[6]) - atoi(t, m[7]); d < -1 || d > 1 {
			t.Errorf("bill, %s: Eino's ~%d is not its agent calls' ~%s and summarizer's ~%s", m[1], eino, m[6], m[7])
		}
		checkRatio(t, m[1]+", this run to Eino's", m[8], this, eino)
		if m[9] != "" {
			tt.none[m[1]] = atoi(t, m[9])
			checkRatio(t, m[1]+", this run to no compaction", m[10], this, tt.none[m[1]])
		}
	}
	if len(tt.this) != 2 {
		t.Fatalf("%d bill rows, want one per price preset (OpenAI-like, no caching)", len(tt.this))
	}
	if compared == nil || atoi(t, compared[1]) != steps {
		t.Fatalf("the comparison row %q does not name the run's %d steps", compared, steps)
	}
	tt.einoCompactions = atoi(t, compared[2])
	if tt.fits {
		if saved == nil || noneFits == nil || failed != nil || noneFail != nil {
			t.Fatalf("every uncompacted call fits the window %d: want the savings row and 'fits the window'", window)
		}
		if atoi(t, saved[1]) != est || atoi(t, saved[2]) != shadow || atoi(t, saved[3]) != pct(shadow-est, shadow) ||
			atoi(t, saved[5]) != sumTokens || atoi(t, saved[4]) != pct(shadow-est-sumTokens, shadow) {
			t.Errorf("savings row %q; the step lines give ~%d with, ~%d without, the summarizer %d tokens", saved[0], est, shadow, sumTokens)
		}
		if atoi(t, noneFits[1]) != peak || atoi(t, noneFits[2]) != window {
			t.Errorf("%q; the step lines' uncompacted peak is ~%d, the window %d", noneFits[0], peak, window)
		}
		for k, n := range tt.none {
			if n < 0 {
				t.Errorf("bill, %s: no compaction fits the window but its bill is not shown", k)
			}
		}
		return tt
	}
	if saved != nil || noneFits != nil || failed == nil || noneFail == nil {
		t.Fatalf("step %d's uncompacted call (~%d) exceeds the window %d: want no savings against it, and the call named", firstOver, overTokens, window)
	}
	if atoi(t, failed[1]) != est || atoi(t, failed[2]) != firstOver {
		t.Errorf("%q; the step lines give ~%d est and the first call over the window is %d", failed[0], est, firstOver)
	}
	if atoi(t, noneFail[1]) != firstOver || atoi(t, noneFail[2]) != steps || atoi(t, noneFail[3]) != overTokens || atoi(t, noneFail[4]) != window {
		t.Errorf("%q; the step lines give call %d of %d at ~%d against %d", noneFail[0], firstOver, steps, overTokens, window)
	}
	for k, n := range tt.none {
		if n >= 0 {
			t.Errorf("bill, %s: a bill for no compaction, which does not fit the window", k)
		}
	}
	return tt
}

// checkRatio checks that the printed ratio is a/b, to its two decimals
// (the bills are printed rounded, hence the margin).
func checkRatio(t *testing.T, what, printed string, a, b int) {
	t.Helper()
	var r float64
	if _, err := fmt.Sscan(printed, &r); err != nil {
		t.Fatalf("%s: ratio %q: %v", what, printed, err)
	}
	if b == 0 || math.Abs(r-float64(a)/float64(b)) > 0.006 {
		t.Errorf("%s: %sx; the bills give %d / %d", what, printed, a, b)
	}
}

// The demo's own window: the run without compaction outgrows it, so the
// summary names the call that would have failed and bills this run next to
// Eino's middleware only, and cheaper caching costs less.
func TestDemoComparesWithEino(t *testing.T) {
	t.Parallel()
	stdout, _, _ := demoOutputs(t)
	tt := checkTotals(t, stdout)
	if tt.fits {
		t.Fatal("the demo's run fits its window without compaction: it demonstrates nothing")
	}
	if tt.einoCompactions == 0 {
		t.Error("Eino's middleware never compacted on the demo's run")
	}
	for _, b := range []map[string]int{tt.this, tt.eino} {
		if b["OpenAI-like"] >= b["no caching"] {
			t.Errorf("a bill with cached input at 0.1 (%d) is not below the one without caching (%d)", b["OpenAI-like"], b["no caching"])
		}
	}
}

// A window the run fits uncompacted: nothing compacts, and this run's bill
// is the no-compaction bill of the simulation, exactly, since it sent the
// same requests: the recorded run and bench's replay bill alike.
func TestDemoWithoutCompactionBillsAsTheSimulation(t *testing.T) {
	t.Parallel()
	config := filepath.Join(t.TempDir(), "wide.yaml")
	if err := os.WriteFile(config, []byte("compaction:\n  context_window: 100000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := demoOutputs(t, "--config", config)
	tt := checkTotals(t, stdout)
	if !tt.fits {
		t.Fatal("the run does not fit a 100,000-token window")
	}
	for k, n := range tt.this {
		if n != tt.none[k] || n != tt.eino[k] {
			t.Errorf("bill, %s: this run ~%d, no compaction ~%d, Eino's middleware ~%d; nothing compacted, so all three are one bill", k, n, tt.none[k], tt.eino[k])
		}
	}
}
