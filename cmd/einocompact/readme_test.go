package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeSection is the README's section on this command.
const readmeSection = "## Preview compaction on a transcript"

// readmeExample returns the command line and the sample output of the
// README's section on this command: its first sh block and its first text
// block.
func readmeExample(t *testing.T, readme string) (args []string, sample string) {
	t.Helper()
	start := strings.Index(readme, readmeSection)
	if start < 0 {
		t.Fatalf("the README has no %q section", readmeSection)
	}
	section := readme[start+len(readmeSection):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	block := func(lang string) string {
		open := "```" + lang + "\n"
		i := strings.Index(section, open)
		if i < 0 {
			t.Fatalf("the README's %q section has no %s block", readmeSection, lang)
		}
		body := section[i+len(open):]
		j := strings.Index(body, "```")
		if j < 0 {
			t.Fatalf("the README's %s block is not closed", lang)
		}
		return body[:j]
	}
	const prefix = "go run ./cmd/einocompact "
	cmd := strings.TrimSpace(block("sh"))
	if !strings.HasPrefix(cmd, prefix) || strings.Contains(cmd, "\n") {
		t.Fatalf("the README's command is not one line starting %q: %q", prefix, cmd)
	}
	return strings.Fields(strings.TrimPrefix(cmd, prefix)), block("text")
}

// durations matches the times the report prints (latency's formats).
var durations = regexp.MustCompile(`\b\d+m\d+(\.\d+)?s\b|\b\d+(\.\d+)?(ns|µs|ms|s)\b`)

// comparable is output with its times replaced and its runs of spaces made
// one, since a time's width moves the table's columns.
func comparable(s string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		lines = append(lines, strings.Join(strings.Fields(durations.ReplaceAllString(l, "TIME")), " "))
	}
	return lines
}

// TestReadmeCLIExample (issue 31 item 6): the README's sample of this
// command's output is what the command prints, run from the repository's
// root as the README says, in an environment naming no endpoint (the
// README says it runs offline by default); only the times may differ.
// Not parallel: it changes the working directory.
func TestReadmeCLIExample(t *testing.T) {
	t.Chdir("../..")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	args, sample := readmeExample(t, string(readme))
	code, stdout, stderr := mtRun(t, mtNoEnv, args...)
	if code != 0 {
		t.Fatalf("the README's command exits %d: %s", code, stderr)
	}
	got, want := comparable(stdout), comparable(sample)
	for i := range max(len(got), len(want)) {
		g, w := "(nothing)", "(nothing)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d of the output differs from the README's sample:\nprinted: %s\nREADME:  %s", i+1, g, w)
		}
	}
	if t.Failed() {
		t.Logf("the command prints:\n%s", stdout)
	}
}
