package einocompact_test

import (
	"os"
	"strings"
	"testing"
)

// The README's "Add compaction to an agent" is examples/quickstart/main.go
// whole, so the code a reader copies is code that compiles (go vet builds
// it) and runs (examples/quickstart's test runs it against a fake endpoint).
func TestReadmeShowsTheQuickstartWhole(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile("examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Add compaction to an agent\n")
	if !ok {
		t.Fatal("README.md has no \"Add compaction to an agent\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	if !strings.Contains(section, "```go\n"+string(code)+"```\n") {
		t.Error("README.md's \"Add compaction to an agent\" is not examples/quickstart/main.go whole; copy the file into its go block")
	}
}

// docs/eino.md's ADK snippet is the code of ExampleNewHookMiddleware between
// its docs/eino.md:adk markers, one tab less indented, so it compiles and
// its output is checked.
func TestEinoDocShowsTheADKExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/eino.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("integration/eino/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, region, ok := strings.Cut(string(src), "// docs/eino.md:adk:begin\n")
	region, _, ok2 := strings.Cut(region, "\t// docs/eino.md:adk:end")
	if !ok || !ok2 {
		t.Fatal("integration/eino/example_test.go has no docs/eino.md:adk markers")
	}
	var snippet strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(region, "\n"), "\n") {
		snippet.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	if !strings.Contains(string(doc), "```go\n"+snippet.String()+"```\n") {
		t.Errorf("docs/eino.md does not show ExampleNewHookMiddleware's code verbatim; copy it:\n%s", snippet.String())
	}
}
