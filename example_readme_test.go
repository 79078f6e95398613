package einocompact_test

import (
	"os"
	"os/exec"
	"path/filepath"
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

// The README's "Install" lines work when pasted into an empty folder: run
// one by one in a new directory next to a stand-in for the clone (a link to
// this checkout), they give a module that requires einocompact through the
// replace directive and builds the code copied in. Offline, as CI's module
// cache allows: the clone is not fetched, modules come from the cache only
// (GOPROXY=off, GOFLAGS=-mod=mod, no checksum database), and go mod tidy
// runs with -e, because offline it cannot fetch the modules that only the
// tests of Eino's own dependencies import, which it wants for the go.sum of
// "all", not for building.
func TestReadmeInstallSteps(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Install\n")
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md's \"Install\" has no sh block")
	}
	checkout, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on the PATH: %v", err)
	}
	root := t.TempDir()
	if err := os.Symlink(checkout, filepath.Join(root, "einocompact")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "myagent")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off",
		"GOTOOLCHAIN=local", "PATH="+filepath.Dir(goCmd)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for line := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "git clone "):
			if !strings.HasSuffix(line, " ../einocompact") {
				t.Fatalf("the clone goes elsewhere than ../einocompact: %s", line)
			}
			continue
		case line == "go mod tidy":
			line = "go mod tidy -e"
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/einocompact/einocompact v0.0.0", "replace github.com/einocompact/einocompact => ../einocompact"} {
		if !strings.Contains(string(mod), want) {
			t.Errorf("go.mod after the steps lacks %q:\n%s", want, mod)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "myagent")); err != nil {
		t.Errorf("the steps built no program: %v", err)
	}
}
