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
// one row per triggered call the demo printed (each compaction, and each
// call held because the last compaction bought too little room), and says
// where it is.
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
	held := strings.Count(stdout.String(), " held: call ~")
	if n := strings.Count(html, `<a class="marker `); n != printed+held {
		t.Errorf("%d markers on the chart, the demo printed %d compactions and %d held calls", n, printed, held)
	}
	if n := strings.Count(html, `<details class="row `); n != printed+held {
		t.Errorf("%d rows, the demo printed %d compactions and %d held calls", n, printed, held)
	}
	if n := strings.Count(html, `<a class="marker k-held"`); n != held {
		t.Errorf("%d held markers on the chart, the demo printed %d held calls", n, held)
	}
	if !strings.Contains(html, `<div class="msgs">`) {
		t.Error("the page shows no replaced message: --html should capture the run's text")
	}
}
