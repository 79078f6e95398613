package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --html writes the inspector's page of the run, with one chart marker and
// one row per compaction the demo printed, and says where it is.
func TestDemoWritesInspectorPage(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "demo.html")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--html", page}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("demo exit %d; stderr:\n%s", code, stderr.String())
	}
	printed := strings.Count(stdout.String(), "↳ compaction #")
	if printed < 2 {
		t.Fatalf("the demo printed %d compactions; the test needs several", printed)
	}
	if !strings.Contains(stdout.String(), "wrote the compaction inspector's page to "+page+": open file://") {
		t.Errorf("the demo does not say where the page is:\n%s", stdout.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if n := strings.Count(html, `<a class="marker `); n != printed {
		t.Errorf("%d markers on the chart, the demo printed %d compactions", n, printed)
	}
	if n := strings.Count(html, `<details class="row `); n != printed {
		t.Errorf("%d rows, the demo printed %d compactions", n, printed)
	}
	if !strings.Contains(html, `<div class="msgs">`) {
		t.Error("the page shows no replaced message: --html should capture the run's text")
	}
}
