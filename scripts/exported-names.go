//go:build ignore

// exported-names prints, for each package under the directory it is given
// (hooks/compaction/internal by default), how many exported top-level names
// its non-test files declare: each exported const, var, type and func (not
// method) counts once, however many files or build variants declare it.
// Issue 34 holds every internal package to 15 or fewer. With -v it lists
// the names too. Run it through scripts/exported-names.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list each package's exported names after its count")
	flag.Parse()
	root := "hooks/compaction/internal"
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	pkgs := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if pkgs[dir] == nil {
			pkgs[dir] = map[string]bool{}
		}
		for _, name := range exported(f) {
			pkgs[dir][name] = true
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "exported-names:", err)
		os.Exit(1)
	}
	for _, dir := range slices.Sorted(func(yield func(string) bool) {
		for d := range pkgs {
			if !yield(d) {
				return
			}
		}
	}) {
		fmt.Printf("%d\t%s\n", len(pkgs[dir]), filepath.ToSlash(dir))
		if *verbose {
			names := make([]string, 0, len(pkgs[dir]))
			for n := range pkgs[dir] {
				names = append(names, n)
			}
			slices.Sort(names)
			fmt.Printf("\t%s\n", strings.Join(names, " "))
		}
	}
}

// exported is the exported top-level names f declares: funcs without a
// receiver and every name of its const, var and type declarations.
func exported(f *ast.File) []string {
	var out []string
	add := func(id *ast.Ident) {
		if id.IsExported() {
			out = append(out, id.Name)
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, id := range s.Names {
						add(id)
					}
				}
			}
		}
	}
	return out
}
