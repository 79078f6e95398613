package compaction

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// The package documentation leads with the five steps a user takes and
// places every other exported name in a group, so `go doc` reads as a map:
// a name added later without a place in doc.go fails here.
func TestPackageDocPlacesEveryName(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]*ast.File, 0, len(pkgs["compaction"].Files))
	for _, f := range pkgs["compaction"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/einocompact/einocompact/hooks/compaction")
	if err != nil {
		t.Fatal(err)
	}
	text := p.Doc
	_, path, ok := strings.Cut(text, "The path a user takes\n")
	path, _, _ = strings.Cut(path, "\n# ")
	if !ok {
		t.Fatal(`the package doc has no "The path a user takes" section`)
	}
	for _, name := range []string{"DefaultCounter", "NewSummarizationCompactor", "NewCompactionHook", "hooks.BeforeLLM", "Observer", "Report", "IsStrategy", "MarkerOf"} {
		if !strings.Contains(path, name) {
			t.Errorf("the user's path does not name %s", name)
		}
	}
	mentioned := func(name string) bool {
		return regexp.MustCompile(`\b` + name + `\b`).MatchString(text)
	}
	var missing []string
	for _, f := range p.Funcs {
		if !mentioned(f.Name) {
			missing = append(missing, f.Name)
		}
	}
	for _, typ := range p.Types {
		if !mentioned(typ.Name) {
			missing = append(missing, typ.Name)
		}
		for _, f := range typ.Funcs {
			if !mentioned(f.Name) && !mentioned(typ.Name) {
				missing = append(missing, f.Name)
			}
		}
		missing = append(missing, unplacedValues(typ.Consts, text, mentioned)...)
		missing = append(missing, unplacedValues(typ.Vars, text, mentioned)...)
	}
	missing = append(missing, unplacedValues(p.Consts, text, mentioned)...)
	missing = append(missing, unplacedValues(p.Vars, text, mentioned)...)
	if len(missing) > 0 {
		t.Errorf("doc.go does not place %s", strings.Join(missing, ", "))
	}
}

// unplacedValues returns the names of the const or var groups that the doc
// places neither by one of their names nor as "the PREFIX constants", where
// every name of the group starts with PREFIX.
func unplacedValues(groups []*doc.Value, text string, mentioned func(string) bool) []string {
	var missing []string
	for _, g := range groups {
		placed := false
		for _, n := range g.Names {
			if mentioned(n) {
				placed = true
				break
			}
		}
		for _, m := range regexp.MustCompile(`the (\w+) constants`).FindAllStringSubmatch(text, -1) {
			all := true
			for _, n := range g.Names {
				all = all && strings.HasPrefix(n, m[1])
			}
			placed = placed || all
		}
		if !placed {
			missing = append(missing, strings.Join(g.Names, "/"))
		}
	}
	return missing
}
