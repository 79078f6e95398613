package compaction

import (
	"regexp"
	"strings"
)

// archivePointerLine matches the line archivePointer ends a compaction's
// message with, and its line break.
var archivePointerLine = regexp.MustCompile(`\n\[Archived: the [0-9]+ earlier message\(s\) replaced here are kept verbatim; call the ` +
	RecallToolName + ` tool with reference "arc1-[0-9a-fcv]+-[0-9a-f]+-[0-9a-f]+" to read them\.\]\s*$`)

// cutArchivePointer splits text into what a compaction wrote and the
// archive's pointer line after it ("" when there is none). The pointer
// follows a summary's closing tag: read as part of the summary, it hid the
// tags (summaryBody returned them as text, and the ledger took
// "/conversation_summary" for a path) and the ledger's block, which must
// end the summary, so a folded summary's identifiers were lost.
func cutArchivePointer(text string) (body, pointer string) {
	loc := archivePointerLine.FindStringIndex(text)
	if loc == nil {
		return text, ""
	}
	return text[:loc[0]], text[loc[0]:]
}

// withoutArchivePointer is text without its archive pointer line and the
// blanks before it, or text itself when it has none.
func withoutArchivePointer(text string) string {
	if body, pointer := cutArchivePointer(text); pointer != "" {
		return strings.TrimRight(body, " \t\r\n")
	}
	return text
}
