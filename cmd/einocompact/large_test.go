package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// writeLargeTranscript writes an Eino transcript of n messages (about 1 KB
// each, as a long coding session: a user turn, then assistant calls and tool
// results) to a file in dir and returns its path. Every tool round carries
// its own call id, path, UUID, hash and error line, so the report has tens of
// thousands of distinct identifiers to look up, as a real session would.
func writeLargeTranscript(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("large-%d.eino.json", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	w.WriteString("[\n")
	for i := range n {
		if i > 0 {
			w.WriteString(",\n")
		}
		if err := enc.Encode(largeMessage(i)); err != nil {
			tb.Fatal(err)
		}
	}
	w.WriteString("]\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// largeMessage is message i of writeLargeTranscript's session: a system
// prompt first, then rounds of user ask, assistant call, tool result.
func largeMessage(i int) *schema.Message {
	if i == 0 {
		return schema.SystemMessage("You are a careful software engineering agent. Read before you write and run the tests after every change.")
	}
	round, step := (i-1)/3, (i-1)%3
	id := fmt.Sprintf("call_%07d", round)
	file := fmt.Sprintf("internal/pkg%03d/file%05d.go", round%997, round)
	switch step {
	case 0:
		return schema.UserMessage(fmt.Sprintf("Step %d: the build fails again after the last change to %s. "+
			"Please look at it, explain what went wrong and fix it without touching unrelated code. "+
			"The failing job is https://ci.example.com/jobs/%d/log and it started with commit %040x.",
			round, file, 100000+round, uint64(round)*0x9e3779b97f4a7c15))
	case 1:
		return schema.AssistantMessage(fmt.Sprintf("I'll read %s first to see what the last change did.", file),
			[]schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{
				Name: "read_file", Arguments: fmt.Sprintf(`{"path": %q}`, file)}}})
	default:
		body := fmt.Sprintf("package pkg%03d\n\n// request %08x-%04x-4%03x-a%03x-%012x\nfunc Handle(ctx context.Context) error {\n"+
			"\tif err := load(ctx); err != nil {\n\t\treturn fmt.Errorf(\"pkg%03d: load failed: %%w\", err)\n\t}\n\treturn nil\n}\n",
			round%997, round, round%65536, round%4096, round%4096, uint64(round)*7919, round%997)
		for len(body) < 2300 {
			body += fmt.Sprintf("// line %d of %s: nothing of note here, only padding so the message has a realistic size\n", len(body), file)
		}
		body += fmt.Sprintf("Error: open /var/cache/build/%d.lock: permission denied\n", round)
		return schema.ToolMessage(body, id, schema.WithToolName("read_file"))
	}
}

// BenchmarkCompactLarge runs the compact command on long transcripts
// (about 1 KB a message) below their trigger, as a user previews a long
// session: the cost is reading, estimating and reporting, all of which must
// grow linearly, so ns/message stays flat across sizes.
// EINOCOMPACT_LARGE_MESSAGES replaces the sizes (comma-separated, e.g.
// 50500 for the 54 MB transcript of issue 15); EINOCOMPACT_LARGE_DIR keeps
// the generated files there, to time the built command on them.
func BenchmarkCompactLarge(b *testing.B) {
	sizes := []int{2500, 10000}
	if env := os.Getenv("EINOCOMPACT_LARGE_MESSAGES"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("EINOCOMPACT_LARGE_MESSAGES: %q is not a message count", f)
			}
			sizes = append(sizes, n)
		}
	}
	dir := os.Getenv("EINOCOMPACT_LARGE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			path := writeLargeTranscript(b, dir, n)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				if code, _, stderr := mtRun(b, mtNoEnv, "compact", "--in", path, "--window", "100000000", "--quiet"); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/message")
		})
	}
}
