package compaction

import (
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
