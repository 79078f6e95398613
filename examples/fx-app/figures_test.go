package main

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// atoi parses a figure the demo printed; the regexps only match digits.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pct is a share in whole percent, rounded as fmt's %.0f rounds.
func pct(part, whole int) int {
	n, _ := strconv.Atoi(strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 0, 64))
	return n
}

var (
	figHeader     = regexp.MustCompile(`window (\d+), compact at (\d+) tokens \(([\d.]+)\), down to (\d+) \(([\d.]+)\)`)
	figStep       = regexp.MustCompile(`^step +(\d+) .* prompt ~ *(\d+) est .*\(uncompacted ~ *(\d+)\)$`)
	figCompaction = regexp.MustCompile(`^  ↳ compaction #(\d+) before step (\d+): .*; call ~(\d+) ≥ trigger (\d+): messages (\d+) \+ overhead (\d+); ` +
		`messages (\d+) → (\d+), target (\d+) = (\d+) − overhead (\d+);`)
	figRow       = regexp.MustCompile(`^ +(\d+) +step (\d+) +\d+ +\d+ → \d+ +(\d+) +(\d+) +(\d+) → (\d+) +(\d+) `)
	figTools     = regexp.MustCompile(`^  tool schemas +~(\d+) est`)
	figSummarize = regexp.MustCompile(`^  summarizer .* (\d+) prompt \+ (\d+) completion tokens`)
)

// Every figure the offline demo prints follows from the others: each
// compaction's call estimate is its messages plus its overhead and reaches
// the trigger, its target is compact_to's share of the window less that
// overhead, the table repeats the lines, the overhead covers the tool
// schemas, and the step named is the step that follows. The totals and
// bills are checkTotals's (compare_test.go).
func TestDemoFiguresReconcile(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("demo exit %d; stderr:\n%s", code, stderr.String())
	}
	lines := strings.Split(stdout.String(), "\n")
	defer func() {
		if t.Failed() {
			t.Logf("demo output:\n%s", stdout.String())
		}
	}()

	h := figHeader.FindStringSubmatch(stdout.String())
	if h == nil {
		t.Fatal("no compaction header")
	}
	window, trigger, target := atoi(t, h[1]), atoi(t, h[2]), atoi(t, h[4])
	at, _ := strconv.ParseFloat(h[3], 64)
	to, _ := strconv.ParseFloat(h[5], 64)
	if trigger != int(math.Round(at*float64(window))) || target != int(math.Round(to*float64(window))) {
		t.Errorf("header: compact at %d and down to %d are not %.2f and %.2f of the window %d", trigger, target, at, to, window)
	}

	type comp struct{ call, overhead, before, after, target int }
	comps := map[int]comp{}
	var tools int
	for i, line := range lines {
		if m := figTools.FindStringSubmatch(line); m != nil {
			tools = atoi(t, m[1])
		}
		m := figCompaction.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, step := atoi(t, m[1]), atoi(t, m[2])
		c := comp{call: atoi(t, m[3]), overhead: atoi(t, m[6]), before: atoi(t, m[5]), after: atoi(t, m[8]), target: atoi(t, m[9])}
		comps[n] = c
		switch {
		case atoi(t, m[4]) != trigger:
			t.Errorf("compaction #%d: trigger %s; the header says %d", n, m[4], trigger)
		case c.call < trigger:
			t.Errorf("compaction #%d ran at a call of %d, below the trigger %d", n, c.call, trigger)
		case c.before+c.overhead != c.call:
			t.Errorf("compaction #%d: messages %d + overhead %d is not the call's %d", n, c.before, c.overhead, c.call)
		case atoi(t, m[7]) != c.before || atoi(t, m[11]) != c.overhead:
			t.Errorf("compaction #%d repeats its figures differently: %s", n, line)
		case atoi(t, m[10]) != target || c.target != target-c.overhead:
			t.Errorf("compaction #%d: target %d is not %d less the overhead %d", n, c.target, target, c.overhead)
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "step "+strconv.Itoa(step)+" ") && !strings.HasPrefix(lines[i+1], "step  "+strconv.Itoa(step)+" ") {
			t.Errorf("compaction #%d says it came before step %d; the next line is %q", n, step, lines[i+1])
		}
	}
	if len(comps) == 0 {
		t.Fatal("no compaction line")
	}
	rows := 0
	for _, line := range lines {
		m := figRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		c, ok := comps[atoi(t, m[1])]
		row := comp{call: atoi(t, m[3]), overhead: atoi(t, m[4]), before: atoi(t, m[5]), after: atoi(t, m[6]), target: atoi(t, m[7])}
		if !ok || row != c {
			t.Errorf("table row %s shows %+v; its compaction line %+v", m[1], row, c)
		}
	}
	if rows != len(comps) {
		t.Errorf("%d table rows for %d compactions", rows, len(comps))
	}
	for n, c := range comps {
		if tools == 0 || c.overhead < tools {
			t.Errorf("compaction #%d: overhead %d does not cover the tool schemas (~%d)", n, c.overhead, tools)
		}
	}

}
