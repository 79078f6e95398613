package inspect

import (
	"strings"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestArchiveRefIsShown: with an archive, each applied compaction's row
// names the reference its report carries; without one, no row mentions an
// archive.
func TestArchiveRefIsShown(t *testing.T) {
	t.Parallel()
	const detail = "Archived: what this compaction removed is kept verbatim under reference"
	for _, archived := range []bool{false, true} {
		name := "no archive"
		var arc compaction.Archive
		if archived {
			name = "file archive"
			a, err := compaction.NewFileArchive(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			arc = a
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, nil)
			res := run{steps: 30, toolText: longText(600), summary: "Logs read.", archive: arc}.drive(t, rec, "c")
			s, _ := rec.snapshot("c")
			if len(s.Compactions) == 0 || len(s.Compactions) != len(res.reports) {
				t.Fatalf("%d compactions recorded, %d reported", len(s.Compactions), len(res.reports))
			}
			page := writePage(t, rec, "c")
			shown := 0
			for i, r := range s.Compactions {
				want := res.reports[i].ArchiveRef
				if r.ArchiveRef != want {
					t.Errorf("compaction %d: recorded reference %q, reported %q", i, r.ArchiveRef, want)
				}
				row := rowText(t, page, r.Call)
				if got := strings.Contains(row, detail); got != (want != "") || (want != "" && !strings.Contains(row, want)) {
					t.Errorf("the row of call %d, reference %q:\n%s", r.Call, want, row)
				}
				if want != "" {
					shown++
				}
			}
			if archived != (shown > 0) {
				t.Fatalf("%d rows show a reference with archive %v", shown, archived)
			}
		})
	}
}
