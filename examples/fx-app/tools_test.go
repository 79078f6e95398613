package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cloudwego/eino/components/tool"
)

func toolsFixture() fstest.MapFS {
	var long strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	return fstest.MapFS{
		"a.go":         {Data: []byte("package a\n\nfunc Retry() {}\n")},
		"dir/b.md":     {Data: []byte("# B\nretry policy\n")},
		"dir/long.txt": {Data: []byte(long.String())},
	}
}

func callTool(t *testing.T, name, args string) string {
	t.Helper()
	tools, err := workspaceTools(toolsFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, bt := range tools {
		info, err := bt.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.Name == name {
			out, err := bt.(tool.InvokableTool).InvokableRun(context.Background(), args)
			if err != nil {
				t.Fatalf("%s(%s): %v", name, args, err)
			}
			return out
		}
	}
	t.Fatalf("no tool %q", name)
	return ""
}

func TestWorkspaceTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args string
		want             []string
		not              []string
	}{
		{"list all", "list_files", `{}`, []string{"a.go (27 bytes)", "dir/b.md (17 bytes)", "files: 3"}, nil},
		{"list dir", "list_files", `{"dir":"dir"}`, []string{"dir/b.md", "files: 2"}, []string{"a.go"}},
		{"read numbered", "read_file", `{"path":"a.go"}`, []string{"a.go (lines 1-3 of 3)", "   3| func Retry() {}"}, nil},
		{"read range", "read_file", `{"path":"dir/long.txt","start_line":10,"end_line":11}`, []string{"  10| line 10", "  11| line 11"}, []string{"line 12"}},
		{"read caps long files", "read_file", `{"path":"dir/long.txt"}`, []string{" 200| line 200", "call again with start_line=201"}, []string{"line 201"}},
		{"read past end", "read_file", `{"path":"a.go","start_line":9}`, []string{"error:", "past the end"}, nil},
		{"read missing", "read_file", `{"path":"nope.go"}`, []string{`error: cannot read "nope.go"`}, nil},
		{"no escape", "read_file", `{"path":"../../a.go"}`, []string{"func Retry"}, nil},
		{"search", "search", `{"pattern":"(?i)retry"}`, []string{"a.go:3: func Retry() {}", "dir/b.md:2: retry policy", "matches: 2"}, nil},
		{"search dir", "search", `{"pattern":"retry","dir":"dir"}`, []string{"dir/b.md:2:", "matches: 1"}, []string{"a.go"}},
		{"search none", "search", `{"pattern":"zebra"}`, []string{`no matches for "zebra"`}, nil},
		{"search bad pattern", "search", `{"pattern":"("}`, []string{`error: bad pattern "("`}, nil},
		{"search caps matches", "search", `{"pattern":"line"}`, []string{"more than 40 matches"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := callTool(t, tt.tool, tt.args)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s(%s) lacks %q:\n%s", tt.tool, tt.args, w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("%s(%s) contains %q:\n%s", tt.tool, tt.args, n, out)
				}
			}
		})
	}
}

// A search whose first file holds exactly the cap must still say that later
// files match too, rather than report the cap as the total.
func TestSearchCapAcrossFiles(t *testing.T) {
	t.Parallel()
	first := strings.Repeat("hit\n", maxSearchMatches)
	ws := fstest.MapFS{"a.txt": {Data: []byte(first)}, "b.txt": {Data: []byte("hit\n")}}
	out := search(ws, searchArgs{Pattern: "hit"})
	if !strings.Contains(out, fmt.Sprintf("more than %d matches", maxSearchMatches)) || strings.Contains(out, "b.txt") {
		t.Errorf("%d+1 matches over two files, search said:\n%s", maxSearchMatches, out)
	}
	ws = fstest.MapFS{"a.txt": {Data: []byte(first)}}
	if out := search(ws, searchArgs{Pattern: "hit"}); !strings.HasSuffix(out, fmt.Sprintf("matches: %d", maxSearchMatches)) {
		t.Errorf("exactly %d matches, search said:\n%s", maxSearchMatches, out)
	}
}
