package einocompact_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// docRegion is code between "// DOC:NAME:begin" and "// DOC:NAME:end" in a
// Go file of the repository, which DOC (README.md or docs/*.md) shows
// verbatim, less the begin marker's indentation.
type docRegion struct {
	doc, name, file, code string
}

var regionMarker = regexp.MustCompile(`^(\s*)// ((?:README|docs/[\w-]+)\.md):([\w-]+):begin$`)

// docRegions finds every marked region in the repository's Go files.
func docRegions(t *testing.T) []docRegion {
	t.Helper()
	var regions []docRegion
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(src), "\n")
		for i, line := range lines {
			m := regionMarker.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			indent, end := m[1], m[1]+"// "+m[2]+":"+m[3]+":end"
			var code strings.Builder
			j := i + 1
			for ; j < len(lines) && lines[j] != end; j++ {
				code.WriteString(strings.TrimPrefix(lines[j], indent) + "\n")
			}
			if j == len(lines) {
				t.Errorf("%s:%d: region %s:%s has no end marker", path, i+1, m[2], m[3])
				continue
			}
			// A comment right below the end marker joins its comment
			// group: an Example's "// Output:" there stops being one, and
			// the example silently stops running.
			if j+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j+1]), "//") {
				t.Errorf("%s:%d: leave a blank line after the end marker of %s:%s", path, j+1, m[2], m[3])
			}
			regions = append(regions, docRegion{doc: m[2], name: m[3], file: path, code: code.String()})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return regions
}

// docGoBlocks returns the go code blocks of a Markdown file, each with the
// line above its fence.
func docGoBlocks(text string) (blocks, above []string) {
	rest := text
	for {
		before, after, ok := strings.Cut(rest, "```go\n")
		if !ok {
			return blocks, above
		}
		before = strings.TrimSuffix(before, "\n")
		above = append(above, before[strings.LastIndex(before, "\n")+1:])
		block, tail, _ := strings.Cut(after, "```\n")
		blocks = append(blocks, block)
		rest = tail
	}
}

// Every marked region of the repository's Go code (an Example's, mostly) is
// shown verbatim in the document it names, so the code a reader copies
// compiles (go vet builds it) and runs (go test runs the example).
func TestDocsShowMarkedRegions(t *testing.T) {
	t.Parallel()
	regions := docRegions(t)
	if len(regions) < 5 {
		t.Fatalf("found %d marked regions; the walk is broken", len(regions))
	}
	for _, r := range regions {
		doc, err := os.ReadFile(r.doc)
		if err != nil {
			t.Errorf("%s names %s: %v", r.file, r.doc, err)
			continue
		}
		blocks, _ := docGoBlocks(string(doc))
		if !slices.Contains(blocks, r.code) {
			t.Errorf("%s does not show %s's region %q verbatim in a go block; copy it:\n%s", r.doc, r.file, r.name, r.code)
		}
	}
}

// Every go block of README.md and docs/*.md is checked code (a file of the
// repository whole, a marked region, or a whole Go file, which
// TestDocGoBlocksCompileAsPasted compiles) or says above its fence that it
// is an excerpt, not a program: "<!-- excerpt: why -->".
func TestDocGoBlocksAreCheckedOrExcerpts(t *testing.T) {
	t.Parallel()
	checked := map[string]bool{}
	for _, r := range docRegions(t) {
		checked[r.code] = true
	}
	quickstart, err := os.ReadFile("examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	checked[string(quickstart)] = true
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append([]string{"README.md"}, docs...) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, above := docGoBlocks(string(text))
		for i, b := range blocks {
			if checked[b] || wholeFile(b) || strings.HasPrefix(above[i], "<!-- excerpt: ") {
				continue
			}
			first, _, _ := strings.Cut(b, "\n")
			t.Errorf("%s: the go block starting %q is neither checked code nor marked <!-- excerpt: ... -->", path, first)
		}
	}
}

// The README's "Install" lines work when pasted into an empty folder: run
// one by one in a new directory next to a stand-in for the clone (a link to
// this checkout), they give a module that requires einocompact through the
// replace directive and builds the code copied in. Offline, from the module
// cache as make test's set-up leaves it (scripts/setup runs go mod download:
// the steps need go.mod files that building the tests does not fetch): the
// clone is not fetched, modules come from the cache only (GOPROXY=off,
// GOFLAGS=-mod=mod, no checksum database), and go mod tidy
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
	// Under -race the steps build with it too: their dependencies are then
	// the ones make test compiled already (2.6 min of CPU less on a cold
	// build cache, measured on 2 cores).
	goflags := "GOFLAGS=-mod=mod -buildvcs=false"
	if raceBuild {
		goflags += " -race"
	}
	env := append(os.Environ(), goflags, "GOPROXY=off", "GOSUMDB=off", "GOWORK=off",
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
			hint := ""
			if strings.Contains(string(out), "GOPROXY=off") {
				hint = "\n(the module cache lacks a module the steps need: make test downloads them first, by scripts/setup; or run go mod download)"
			}
			t.Fatalf("%s: %v\n%s%s", line, err, out, hint)
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

// CI runs exactly the README's test command, with an empty module cache of
// its own, so it proves what a new clone gets.
func TestCIRunsTheReadmeTestCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, quick, _ := strings.Cut(string(readme), "## Quick start\n")
	_, block, _ := strings.Cut(quick, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var readmeTest string
	for line := range strings.SplitSeq(block, "\n") {
		if command, _, _ := strings.Cut(line, "#"); strings.Contains(command, " test") {
			readmeTest = strings.TrimSpace(command)
		}
	}
	if readmeTest == "" {
		t.Fatalf("README.md's Quick start shows no test command:\n%s", block)
	}
	script, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for line := range strings.SplitSeq(string(script), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			commands = append(commands, line)
		}
	}
	if last := commands[len(commands)-1]; last != readmeTest {
		t.Errorf(".ci/run ends with %q, not the README's test command %q", last, readmeTest)
	}
	// A module cache of its own (GOMODCACHE set and exported), emptied
	// before the test command runs.
	set := slices.IndexFunc(commands, func(c string) bool { return strings.HasPrefix(c, "GOMODCACHE=") })
	export := slices.Index(commands, "export GOMODCACHE")
	clean := slices.Index(commands, "go clean -modcache")
	if set < 0 || export < set || clean < export {
		t.Errorf(".ci/run does not give the test command an empty module cache (GOMODCACHE=DIR, export GOMODCACHE, go clean -modcache):\n%s", script)
	}
}
