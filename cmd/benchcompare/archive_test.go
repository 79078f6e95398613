package main

import (
	"context"
	"strings"
	"testing"
)

// The archive's bill runs every row on every shape and prints them, the
// rows with the archive bringing forgotten facts back by recall, a recall
// by search in fewer tokens than one of the whole entry.
func TestArchiveReport(t *testing.T) {
	t.Parallel()
	all, err := runArchiveBills(context.Background(), 120, 8000)
	if err != nil {
		t.Fatal(err)
	}
	recalled := 0
	for _, seeds := range all {
		for _, s := range seeds {
			for _, row := range archiveRows() {
				b := s[row][archiveColumns()[1].label]
				if !strings.Contains(row, archiveSuffix) && b.Recalled != 0 {
					t.Errorf("%s recalled %d facts without an archive", row, b.Recalled)
				}
				recalled += b.Recalled
				// A search returns part of what the whole entry holds.
				if n := s[row+searchSuffix][archiveColumns()[1].label]; strings.HasSuffix(row, archiveSuffix) &&
					(n.Recalled != b.Recalled || n.RecallTokens >= b.RecallTokens) {
					t.Errorf("%s: recall by search brought back %d facts in %d tokens, the whole entries %d in %d",
						row, n.Recalled, n.RecallTokens, b.Recalled, b.RecallTokens)
				}
			}
		}
	}
	if recalled == 0 {
		t.Error("no run with the archive recalled a fact")
	}
	out := archiveReport(all, 120, 8000)
	for _, want := range append(archiveRows(), "Forgetting with the archive") {
		if !strings.Contains(out, "| "+want+" |") && !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
