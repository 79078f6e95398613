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

// TestCompactPageForALongPath (issue 30 item 18): a transcript whose path is
// longer than the inspector keeps of a conversation id (200 bytes) still
// gets its page and its --out. The command used to look its run up by the
// whole path, found nothing, and exited 1 with an empty page and no --out.
func TestCompactPageForALongPath(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "coding.eino.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, strings.Repeat("a-long-directory-name-", 5), strings.Repeat("a-long-file-name-", 8)+".eino.json")
	if len(in) <= 200 {
		t.Fatalf("the path is %d bytes, not above 200", len(in))
	}
	if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	page, out := filepath.Join(dir, "page.html"), filepath.Join(dir, "out.json")
	code, stdout, stderr := mtRun(t, mtNoEnv, "compact", "--in", in, "--window", "3000", "--offline", "--quiet", "--html", page, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), `class="marker `); n != 1 {
		t.Errorf("the page has %d markers, want the compaction's one (%d bytes)", n, len(html))
	}
	var msgs []*schema.Message
	if b, err := os.ReadFile(out); err != nil {
		t.Errorf("--out: %v", err)
	} else if err := json.Unmarshal(b, &msgs); err != nil || len(msgs) == 0 {
		t.Errorf("--out holds no transcript: %v", err)
	}
	for _, want := range []string{"wrote " + page, "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestCompactPageFailureKeepsOut: when the page cannot be written, --out is
// written all the same and no empty page is left behind.
func TestCompactPageFailureKeepsOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page, out := filepath.Join(dir, "no-such-dir", "page.html"), filepath.Join(dir, "out.json")
	code, _, stderr := mtRun(t, mtNoEnv, "compact", "--in", filepath.Join("testdata", "coding.eino.json"), "--window", "3000",
		"--offline", "--quiet", "--html", page, "--out", out)
	if code != 1 || !strings.Contains(stderr, page) {
		t.Errorf("exit %d, stderr %q; want 1 and the page's path", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--out was not written: %v", err)
	}
}
