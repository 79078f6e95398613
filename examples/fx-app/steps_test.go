package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// demoOutputs runs the demo as main does, with args, and returns what it
// wrote to stdout and stderr and the inspector's page.
func demoOutputs(t *testing.T, args ...string) (stdout, stderr, page string) {
	t.Helper()
	html := filepath.Join(t.TempDir(), "page.html")
	var out, errOut bytes.Buffer
	args = append([]string{"--html", html, "--log-level", "debug"}, args...)
	if code := run(context.Background(), args, &out, &errOut, noEnv); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), string(data)
}

var (
	terminalStep = regexp.MustCompile(`↳ compaction #(\d+) before step (\d+):[^\n]*\nstep +(\d+) `)
	logStep      = regexp.MustCompile(`msg="compaction applied" step=(\d+) `)
	pageStep     = regexp.MustCompile(`<summary class="grid"><span>(#\d+|none,) before step (\d+)</span><span class="kind">([^<]*)</span>`)
)

// One step numbering (issue 31 item 7): the terminal's compaction lines,
// the step line that follows each, the hook's log and the inspector's rows
// name the same step for every compaction, and number compactions alike.
func TestStepNumberingAgrees(t *testing.T) {
	t.Parallel()
	stdout, stderr, page := demoOutputs(t)
	var terminal, terminalN, next []string
	for _, m := range terminalStep.FindAllStringSubmatch(stdout, -1) {
		terminalN, terminal, next = append(terminalN, m[1]), append(terminal, m[2]), append(next, m[3])
	}
	var logged []string
	for _, m := range logStep.FindAllStringSubmatch(stderr, -1) {
		logged = append(logged, m[1])
	}
	// The inspector has a row for every triggered call, held ones too (the
	// last compaction bought too little room), and numbers the compactions
	// applied, as the terminal does; the others read "none,".
	var shown, shownN []string
	for _, m := range pageStep.FindAllStringSubmatch(page, -1) {
		if m[1] == "none," {
			continue
		}
		shownN, shown = append(shownN, strings.TrimPrefix(m[1], "#")), append(shown, m[2])
	}
	if len(terminal) < 2 {
		t.Fatalf("%d compaction lines followed by their step in the terminal; want the demo's several:\n%s", len(terminal), stdout)
	}
	if !slices.Equal(terminal, next) {
		t.Errorf("compactions before steps %v, but the step lines after them are %v", terminal, next)
	}
	if !slices.Equal(terminal, logged) {
		t.Errorf("the terminal says compactions came before steps %v, the log says %v", terminal, logged)
	}
	if !slices.Equal(terminal, shown) || !slices.Equal(terminalN, shownN) {
		t.Errorf("the terminal says compactions %v came before steps %v, the inspector says %v before %v", terminalN, terminal, shownN, shown)
	}
	if !strings.Contains(stdout, "step "+terminal[0]+" ") {
		t.Errorf("no step line for step %s", terminal[0])
	}
}
