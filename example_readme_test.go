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
