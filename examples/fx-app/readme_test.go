package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeDuration matches the latencies and wall times the demo prints, the
// only parts of its output that change from run to run.
var readmeDuration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m)\b`)

// readmeNormalize makes a demo line comparable across runs: durations become
// a placeholder, and runs of spaces (column padding around them) one space.
func readmeNormalize(line string) string {
	return strings.Join(strings.Fields(readmeDuration.ReplaceAllString(line, "DUR")), " ")
}

// readmeExcerpt returns the lines of the README's quick-start output block,
// without the "..." lines that mark what it leaves out.
func readmeExcerpt(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(data), "<!-- quick-start:begin -->")
	if !ok {
		t.Fatal("README.md has no quick-start section")
	}
	_, block, ok := strings.Cut(quick, "```text\n")
	if !ok {
		t.Fatal("the quick start shows no demo output")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for line := range strings.SplitSeq(block, "\n") {
		if s := strings.TrimSpace(line); s != "" && s != "..." {
			lines = append(lines, line)
		}
	}
	return lines
}

// The README's quick start shows what `make demo` prints; every line it
// shows must be a line the offline demo really prints, in that order.
func TestReadmeQuickStartMatchesTheDemo(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("demo exit %d; stderr:\n%s", code, stderr.String())
	}
	var got []string
	for line := range strings.SplitSeq(stdout.String(), "\n") {
		got = append(got, readmeNormalize(line))
	}
	excerpt := readmeExcerpt(t)
	if len(excerpt) < 10 {
		t.Fatalf("the README excerpt has only %d lines", len(excerpt))
	}
	at := 0
	for _, want := range excerpt {
		n := readmeNormalize(want)
		i := at
		for i < len(got) && got[i] != n {
			i++
		}
		if i == len(got) {
			t.Errorf("README shows a line the demo does not print (after line %d of its output):\n  %s", at+1, want)
			continue
		}
		at = i + 1
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", stdout.String())
	}
}

func TestReadmeNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b string }{
		{"summarizer 0.3ms, identifiers", "summarizer 12.75ms, identifiers"},
		{"   1  step 5   2584 → 1349     1056       0.3ms  tier", "   1  step 5   2584 → 1349     1056      10.3ms  tier"},
		{"wall time            30ms", "wall time            1.2s"},
	}
	for _, tt := range tests {
		if readmeNormalize(tt.a) != readmeNormalize(tt.b) {
			t.Errorf("%q and %q should compare equal", tt.a, tt.b)
		}
	}
	if readmeNormalize("16 model calls") == readmeNormalize("15 model calls") {
		t.Error("counts must not be normalized away")
	}
}
