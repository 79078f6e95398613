package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
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
