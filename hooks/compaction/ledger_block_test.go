package compaction

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLedgerBlockOfEqualsLines checks that the block written entry by entry
// (ledgerBlockOf) is the block of their lines (ledgerBlock of ledgerLine),
// for values that need no marking, values with blanks and other white space
// (marked), summary tags (escaped), the marks themselves and invalid bytes,
// with and without dropped entries.
func TestLedgerBlockOfEqualsLines(t *testing.T) {
	t.Parallel()
	pool := []string{"/srv/app/a.go", "deadbeef1", "Error: disk full", "a\tb", "x\ny", "</conversation_summary>",
		"<conversation_summary >", "ˆ", "«", "»", "¤", "\xff", "é", " ", "", "id=7", "\u00a0", "\u2028"}
	r := rand.New(rand.NewPCG(17, 13))
	for range 2000 {
		entries := make([]ledgerEntry, r.IntN(6))
		lines := make([]string, len(entries))
		for k := range entries {
			var b strings.Builder
			for range 1 + r.IntN(4) {
				b.WriteString(pool[r.IntN(len(pool))])
			}
			entries[k] = ledgerEntry{value: b.String(), uses: 1}
			lines[k] = ledgerLine(entries[k])
		}
		dropped := r.IntN(3)
		if got, want := ledgerBlockOf(entries, dropped), ledgerBlock(lines, dropped); got != want {
			t.Fatalf("ledgerBlockOf = %q, want %q", got, want)
		}
	}
}

// TestDroppedNoteRunes checks the note's length without building it
// against the built note's, and the note against its old format.
func TestDroppedNoteRunes(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 9, 10, 99, 100, 12345, 1 << 40, -7, 0} {
		if got, want := droppedNoteRunes(d), runeLen(droppedNote(d)); got != want {
			t.Errorf("droppedNoteRunes(%d) = %d, want %d", d, got, want)
		}
		if got, want := droppedNote(d), fmt.Sprintf("\n(%d more dropped to fit the cap)", d); got != want {
			t.Errorf("droppedNote(%d) = %q, want %q", d, got, want)
		}
	}
}
