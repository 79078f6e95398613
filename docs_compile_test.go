package einocompact_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packageClause finds the package clause that makes a go block a whole Go
// file, after its leading comments.
var packageClause = regexp.MustCompile(`(?m)^package \w+\s*$`)

// wholeFile reports whether a go block is a Go file as it stands: its first
// line that is neither blank nor a comment is its package clause.
func wholeFile(block string) bool {
	for line := range strings.SplitSeq(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		return packageClause.MatchString(line)
	}
	return false
}

// docBlock is one go block of a document, with where it is.
type docBlock struct {
	doc  string
	line int
	code string
}

// copyableGoBlocks returns every go block of README.md and docs/*.md that a
// reader would copy whole: not marked "<!-- excerpt: ... -->" above its
// fence, and not a marked region of code compiled in place (an Example's
// body, which TestDocsShowMarkedRegions ties to its source).
func copyableGoBlocks(t *testing.T) []docBlock {
	t.Helper()
	regions := map[string]bool{}
	for _, r := range docRegions(t) {
		regions[r.code] = true
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	for _, path := range append([]string{"README.md"}, docs...) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, above := docGoBlocks(string(text))
		for i, b := range blocks {
			if strings.HasPrefix(above[i], "<!-- excerpt: ") || regions[b] {
				continue
			}
			line := 1 + strings.Count(string(text[:strings.Index(string(text), "```go\n"+b)]), "\n")
			out = append(out, docBlock{doc: path, line: line, code: b})
		}
	}
	return out
}

// Every go block a reader would copy whole compiles as pasted: each is put,
// verbatim, in a file of its own in a fresh module that requires this
// checkout through a replace directive (as README's Install does), and go
// vet builds and checks them all. A block that is not a whole Go file
// (package clause, imports, declarations) must be marked as an excerpt,
// or be a marked region of compiled code. Offline, from the module cache
// only, like TestReadmeInstallSteps.
func TestDocGoBlocksCompileAsPasted(t *testing.T) {
	t.Parallel()
	blocks := copyableGoBlocks(t)
	checkout, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on the PATH: %v", err)
	}
	dir := t.TempDir()
	mod := fmt.Sprintf("module docsnippets\n\ngo 1.26\n\nrequire github.com/einocompact/einocompact v0.0.0\n\nreplace github.com/einocompact/einocompact => %s\n", checkout)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	where := map[string]docBlock{}
	for i, b := range blocks {
		if !wholeFile(b.code) {
			first, _, _ := strings.Cut(strings.TrimSpace(b.code), "\n")
			t.Errorf("%s:%d: the go block starting %q is not a whole Go file: make it one (package, imports, code that compiles as pasted) or mark it <!-- excerpt: why -->", b.doc, b.line, first)
			continue
		}
		pkg := fmt.Sprintf("block%02d", i)
		where[pkg] = b
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, "block.go"), []byte(b.code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(where) < 4 {
		t.Fatalf("%d whole-file go blocks in the docs; the extraction is broken (README.md's quickstart, docs/counters.md, docs/deployment.md and docs/inspect.md have one each)", len(where))
	}
	cmd := exec.Command(goCmd, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Name each failing block by its document and line, not by its
	// directory in the temporary module.
	report := string(out)
	for pkg, b := range where {
		report = strings.ReplaceAll(report, pkg+"/block.go", fmt.Sprintf("%s (block at line %d), line", b.doc, b.line))
		report = strings.ReplaceAll(report, "docsnippets/"+pkg, fmt.Sprintf("%s (block at line %d)", b.doc, b.line))
	}
	t.Errorf("go blocks of the docs do not compile as pasted: %v\n%s", err, report)
}
