package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
)

// Limits that keep one tool result from flooding the context on its own,
// the way real coding agents cap what a single call returns.
const (
	maxReadLines     = 200
	maxSearchMatches = 40
	maxLineRunes     = 200
)

type listFilesArgs struct {
	Dir string `json:"dir,omitempty" jsonschema_description:"directory to list, relative to the workspace root; empty for the root"`
}

type readFileArgs struct {
	Path      string `json:"path" jsonschema:"required" jsonschema_description:"file path relative to the workspace root"`
	StartLine int    `json:"start_line,omitempty" jsonschema_description:"first line to return, 1-based; default 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema_description:"last line to return; default the end of the file (at most 200 lines are returned)"`
}

type searchArgs struct {
	Pattern string `json:"pattern" jsonschema:"required" jsonschema_description:"RE2 regular expression matched against each line"`
	Dir     string `json:"dir,omitempty" jsonschema_description:"only search files under this directory; empty for the whole workspace"`
}

// workspaceTools returns the three read-only tools over ws. Failures the
// model can act on (a missing file, a bad pattern) come back as the tool's
// text rather than as errors, so the run goes on and the model can retry.
func workspaceTools(ws fs.FS) ([]tool.BaseTool, error) {
	list, err := utils.InferTool("list_files",
		"List the files under a directory of the workspace, recursively, with their sizes in bytes.",
		func(_ context.Context, a listFilesArgs) (string, error) { return listFiles(ws, a.Dir), nil })
	if err != nil {
		return nil, err
	}
	read, err := utils.InferTool("read_file",
		"Read a text file of the workspace. Lines are numbered; use start_line and end_line for a part of a long file.",
		func(_ context.Context, a readFileArgs) (string, error) { return readFile(ws, a), nil })
	if err != nil {
		return nil, err
	}
	search, err := utils.InferTool("search",
		"Search the workspace files for lines matching a regular expression. Returns path:line: text for each match.",
		func(_ context.Context, a searchArgs) (string, error) { return search(ws, a), nil })
	if err != nil {
		return nil, err
	}
	return []tool.BaseTool{list, read, search}, nil
}

// clean turns a model-supplied path into an fs.FS path. Rooting it first
// means "../" can never climb out of the workspace.
func clean(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "."
	}
	return p
}

func listFiles(ws fs.FS, dir string) string {
	root := clean(dir)
	var b strings.Builder
	n := 0
	err := fs.WalkDir(ws, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s (%d bytes)\n", p, info.Size())
		n++
		return nil
	})
	if err != nil {
		return fmt.Sprintf("error: cannot list %q: %v", dir, err)
	}
	fmt.Fprintf(&b, "files: %d", n)
	return b.String()
}

func readFile(ws fs.FS, a readFileArgs) string {
	data, err := fs.ReadFile(ws, clean(a.Path))
	if err != nil {
		return fmt.Sprintf("error: cannot read %q: %v", a.Path, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	start := max(a.StartLine, 1)
	end := len(lines)
	if a.EndLine > 0 {
		end = min(a.EndLine, end)
	}
	if start > end {
		return fmt.Sprintf("error: %s has %d lines; start_line %d is past the end", a.Path, len(lines), start)
	}
	truncated := false
	if end-start+1 > maxReadLines {
		end, truncated = start+maxReadLines-1, true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (lines %d-%d of %d)\n", clean(a.Path), start, end, len(lines))
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%4d| %s\n", i, lines[i-1])
	}
	if truncated {
		fmt.Fprintf(&b, "[truncated: call again with start_line=%d]\n", end+1)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func search(ws fs.FS, a searchArgs) string {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return fmt.Sprintf("error: bad pattern %q: %v", a.Pattern, err)
	}
	var b strings.Builder
	n := 0
	err = fs.WalkDir(ws, clean(a.Dir), func(p string, d fs.DirEntry, err error) error {
		// Past the cap, not at it: one more match must be seen to know
		// there are more than the cap.
		if err != nil || d.IsDir() || n > maxSearchMatches {
			return err
		}
		f, err := ws.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			if re.MatchString(sc.Text()) {
				n++
				if n > maxSearchMatches {
					break
				}
				fmt.Fprintf(&b, "%s:%d: %s\n", p, line, clipRunes(strings.TrimSpace(sc.Text()), maxLineRunes))
			}
		}
		return sc.Err()
	})
	if err != nil {
		return fmt.Sprintf("error: cannot search %q: %v", a.Dir, err)
	}
	switch {
	case n == 0:
		return fmt.Sprintf("no matches for %q", a.Pattern)
	case n > maxSearchMatches:
		fmt.Fprintf(&b, "[more than %d matches; narrow the pattern or the dir]", maxSearchMatches)
	default:
		fmt.Fprintf(&b, "matches: %d", n)
	}
	return b.String()
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
