package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// TestWriteTableIdentifiers checks the identifier row and the lost list: an
// identifier counts as kept when it occurs anywhere in the result, even
// inside other text, and as lost otherwise.
func TestWriteTableIdentifiers(t *testing.T) {
	t.Parallel()
	before := []*schema.Message{
		schema.UserMessage("compare /srv/app/main.go with /srv/app/old.go"),
		schema.AssistantMessage("see https://example.com/issues/7 and /srv/app/util.go", nil),
	}
	tests := []struct {
		name      string
		after     []*schema.Message
		kept      string
		lost      []string
		wantNoRow bool // no "identifiers lost" line
	}{
		{"unchanged", before, "4", nil, true},
		{"two dropped", []*schema.Message{schema.UserMessage("summary: main.go at /srv/app/main.go; util /srv/app/util.go")}, "2",
			[]string{"/srv/app/old.go", "https://example.com/issues/7"}, false},
		{"all dropped", []*schema.Message{schema.UserMessage("nothing left")}, "0",
			[]string{"/srv/app/main.go", "/srv/app/old.go", "https://example.com/issues/7", "/srv/app/util.go"}, false},
	}
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	b, err := describe(ctx, before, counter)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := describe(ctx, tt.after, counter)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			writeTable(&out, b, a, compaction.Report{}, tt.after)
			row := regexp.MustCompile(`identifiers +(\d+) +(\d+)`).FindStringSubmatch(out.String())
			if row == nil || row[2] != tt.kept {
				t.Fatalf("identifier row %v, want %s kept:\n%s", row, tt.kept, out.String())
			}
			lostLine := ""
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "identifiers lost:") {
					lostLine = l
				}
			}
			if tt.wantNoRow != (lostLine == "") {
				t.Fatalf("lost line %q", lostLine)
			}
			for _, id := range tt.lost {
				if !strings.Contains(lostLine, `"`+id+`"`) {
					t.Errorf("%s not listed as lost: %q", id, lostLine)
				}
			}
		})
	}
}

// TestWriteTableCountsMarkedIdentifiersAsKept: the library's ledger and the
// extractive summarizer quote tool text marked as data («FAIL:ˆTestConvert
// (0.00s)», spotlight.Mark), and the library counts such an identifier as
// kept; the report must count it the same way, not list it as lost.
func TestWriteTableCountsMarkedIdentifiersAsKept(t *testing.T) {
	t.Parallel()
	const failLine = "FAIL: TestConvert/usd_to_jpy (0.00s)"
	before := []*schema.Message{
		schema.UserMessage("why does the build fail?"),
		schema.ToolMessage("--- "+failLine+"\n    rates_test.go:41: got 0, want 15023", "call_1"),
	}
	tests := []struct {
		name     string
		summary  string
		wantLost bool
	}{
		{"marked", "## Work completed\n- go test -> " + spotlight.Mark(failLine) + "\n- see rates_test.go", false},
		{"verbatim", "## Work completed\n- go test -> " + failLine + "\n- see rates_test.go", false},
		{"gone", "## Work completed\n- the tests failed\n- see rates_test.go", true},
	}
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	b, err := describe(ctx, before, counter)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.text, failLine) || spotlight.Mark(failLine) == failLine {
		t.Fatalf("the fixture shows nothing: %q", b.text)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			after := []*schema.Message{compaction.NewSummaryMessage(tt.summary, 2)}
			a, err := describe(ctx, after, counter)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			writeTable(&out, b, a, compaction.Report{}, after)
			lost := strings.Contains(out.String(), `identifiers lost: "`+failLine+`"`) ||
				strings.Contains(out.String(), `, "`+failLine+`"`)
			if lost != tt.wantLost {
				t.Fatalf("%q listed as lost: %v, want %v:\n%s", failLine, lost, tt.wantLost, out.String())
			}
		})
	}
}
