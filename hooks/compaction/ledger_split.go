package compaction

import "strings"

// SplitLedger splits a summary message's text around the identifier block
// the ledger appended to it (its "## Identifiers (verbatim)" heading and
// "- " lines): before+block+after == text, block "" when the summary has no
// such block; the archive's pointer line after the summary goes to after.
// Tools that show a summary use it to tell the summarizer's
// words from the identifiers the ledger restored.
func SplitLedger(text string) (before, block, after string) {
	body := strings.TrimRight(withoutArchivePointer(text), " \t\r\n")
	if b, ok := strings.CutSuffix(body, summaryClose); ok {
		body = strings.TrimRight(b, "\n")
	}
	i := ledgerBlockAt(body)
	if i < 0 {
		return text, "", ""
	}
	// i is the "\n" before the heading: the block starts after it.
	return text[:i+1], text[i+1 : len(body)], text[len(body):]
}
