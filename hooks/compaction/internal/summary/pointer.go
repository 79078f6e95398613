package summary

import (
	"fmt"
	"regexp"
	"strings"
)

// Pointer is the line a compaction's new messages end with when the n
// messages they replaced were archived under ref.
func Pointer(n int, ref string) string {
	return fmt.Sprintf("[Archived: the %d earlier message(s) replaced here are kept verbatim; call the %s tool with reference %q to read them.]",
		n, RecallTool, ref)
}

// pointerLine matches the line Pointer writes and the line break before it.
var pointerLine = regexp.MustCompile(`\n\[Archived: the [0-9]+ earlier message\(s\) replaced here are kept verbatim; call the ` +
	RecallTool + ` tool with reference "arc1-[0-9a-fcv]+-[0-9a-f]+-[0-9a-f]+" to read them\.\]\s*$`)

// cutPointer splits text into what a compaction wrote and the archive's
// pointer line after it ("" when there is none). The pointer follows a
// summary's closing tag: read as part of the summary, it hid the tags (Body
// returned them as text, and the ledger took "/conversation_summary" for a
// path) and the ledger's block, which must end the summary, so a folded
// summary's identifiers were lost.
func cutPointer(text string) (body, pointer string) {
	loc := pointerLine.FindStringIndex(text)
	if loc == nil {
		return text, ""
	}
	return text[:loc[0]], text[loc[0]:]
}

// withoutPointer is text without its archive pointer line and the blanks
// before it, or text itself when it has none.
func withoutPointer(text string) string {
	if body, pointer := cutPointer(text); pointer != "" {
		return strings.TrimRight(body, " \t\r\n")
	}
	return text
}
