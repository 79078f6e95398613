package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestCompactWritesInspectorPage: --html writes one self-contained page
// with the compaction's marker and row and the transcript's replaced text.
func TestCompactWritesInspectorPage(t *testing.T) {
	t.Parallel()
	in := filepath.Join("testdata", "coding.eino.json")
	page := filepath.Join(t.TempDir(), "page.html")
	code, stdout, stderr := mtRun(t, mtNoEnv, "compact", "--in", in, "--window", "3000", "--offline", "--quiet", "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+page) {
		t.Errorf("stdout does not say where the page is:\n%s", stdout)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*schema.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	// The oldest tool result is what a compaction replaces first.
	var firstTool string
	for _, m := range msgs {
		if m.Role == schema.Tool && len(m.Content) > 20 {
			firstTool = m.Content[:20]
			break
		}
	}
	for _, want := range []string{`class="marker k-synchronous"`, `<details class="row k-synchronous"`, `http-equiv="Content-Security-Policy"`, firstTool} {
		if strings.Count(html, want) < 1 {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="marker `); n != 1 {
		t.Errorf("%d markers, want 1: the transcript is compacted once", n)
	}
	for _, outside := range []string{"<script", "<link", "src=", "@import"} {
		if strings.Contains(html, outside) {
			t.Errorf("the page is not self-contained: it has %q", outside)
		}
	}
}
