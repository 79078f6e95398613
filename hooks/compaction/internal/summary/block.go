package summary

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// The identifier ledger's block ends a summary's text: LedgerHeading, one
// "- " line per identifier (marked as data by spotlight.Mark), perhaps a
// line saying how many were dropped to fit its cap, and, with an archive, a
// legend naming the references the lines' tags stand for (issue 33 item 2):
//
//	## Identifiers (verbatim)
//	- deploy/prod.yaml
//	- registry.local/api@sha256:4f2a9c1e7b [a1]
//	(a1: recall reference arc1-...)
//
// An identifier the ledger lists from the span a summary replaces is under
// the reference of the summary's own pointer line; one carried from an
// earlier summary folded into it was held by that summary's span, another
// reference, and its line ends with a tag. A value the ledger lists has no
// blank (Mark replaces every one), so the tag after a space is never part of
// it. Without an archive no summary has a reference: no tag, no legend.

// BlockAt is where the ledger's block starts in a summary's text (the "\n"
// before its heading), or -1. The heading alone is not proof: a summarizer
// told to write "## Identifiers" may write the ledger's heading and sections
// after it. The ledger's block is the text's last part and holds nothing but
// "- " lines, the last of them perhaps its dropped note, and the legend.
func BlockAt(text string) int {
	i := strings.LastIndex(text, "\n"+LedgerHeading+"\n")
	if i < 0 {
		return -1
	}
	lines := strings.Split(strings.TrimRight(text[i+len(LedgerHeading)+2:], "\n"), "\n")
	if n := len(lines); n > 1 && parseLegend(lines[n-1]) != nil {
		lines = lines[:n-1]
	}
	for k, line := range lines {
		if strings.HasPrefix(line, "- ") {
			continue
		}
		if k == len(lines)-1 && k > 0 && droppedLine.MatchString(line) {
			continue
		}
		return -1
	}
	return i
}

// droppedLine matches the ledger's dropped note's line.
var droppedLine = regexp.MustCompile(`^\(\d+ more dropped to fit the cap\)$`)

// BlockValues reads back the identifiers a summary's own ledger block lists.
// The marker may remember fewer (MaxRemembered), and the extractors cannot
// recognise a bare tool-call id or argument value outside the header or JSON
// it came from, so without this a folded summary's appended identifiers were
// forgotten without being counted as dropped. Values are unmarked
// (spotlight.Unmark), so the fold carries what the tool said, the same value
// the marker remembers. text may still have the summary's tags.
func BlockValues(text string) []string {
	var out []string
	for _, line := range blockLines(text) {
		v, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		v, _ = splitTag(v)
		out = append(out, spotlight.Unmark(v))
	}
	return out
}

// blockLines is the lines of a summary's ledger block after its heading, nil
// when it has none. text may still have the summary's tags and the
// archive's pointer.
func blockLines(text string) []string {
	text = strings.TrimSpace(withoutPointer(text))
	if body, ok := strings.CutSuffix(text, Close); ok {
		text = strings.TrimRight(body, "\n")
	}
	i := BlockAt(text)
	if i < 0 {
		return nil
	}
	return strings.Split(text[i+len(LedgerHeading)+2:], "\n")
}

// Split splits a summary message's text around the ledger's block:
// before+block+after == text, block "" when the summary has no such block;
// the archive's pointer line after the summary goes to after.
func Split(text string) (before, block, after string) {
	body := strings.TrimRight(withoutPointer(text), " \t\r\n")
	if b, ok := strings.CutSuffix(body, Close); ok {
		body = strings.TrimRight(b, "\n")
	}
	i := BlockAt(body)
	if i < 0 {
		return text, "", ""
	}
	// i is the "\n" before the heading: the block starts after it.
	return text[:i+1], text[i+1 : len(body)], text[len(body):]
}

// Remembered is the list of identifiers a marker's LedgerKey field holds:
// a []string as written, or the []any a decoded marker holds (non-strings
// and blanks left out); nil for anything else.
func Remembered(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Tag is the tag of a block line whose identifier is under the n-th
// reference of the legend (n >= 1); "" for n 0.
func Tag(n int) string {
	if n <= 0 {
		return ""
	}
	return " [a" + strconv.Itoa(n) + "]"
}

// tagged matches a block line's value and tag.
var tagged = regexp.MustCompile(`^(\S+) \[a([1-9][0-9]*)\]$`)

// splitTag splits a block line's text (after "- ") into its value and its
// tag's number, 0 when it has none.
func splitTag(line string) (value string, tag int) {
	m := tagged.FindStringSubmatch(line)
	if m == nil {
		return line, 0
	}
	n, _ := strconv.Atoi(m[2])
	return m[1], n
}

// The legend line's parts.
const (
	legendOpen = "\n("
	legendRef  = ": recall reference "
	legendSep  = "; "
	legendEnd  = ")"
)

// Legend is the line naming refs[i] as tag i+1, with its leading line
// break; "" without refs.
func Legend(refs []string) string {
	if len(refs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(legendOpen)
	for i, r := range refs {
		if i > 0 {
			b.WriteString(legendSep)
		}
		b.WriteString("a" + strconv.Itoa(i+1) + legendRef + r)
	}
	b.WriteString(legendEnd)
	return b.String()
}

// legendLine matches the legend's line.
var legendLine = regexp.MustCompile(`^\(a1: recall reference \S+(; a[0-9]+: recall reference \S+)*\)$`)

// parseLegend returns the references a legend line names, in tag order, or
// nil when line is not one.
func parseLegend(line string) []string {
	if !legendLine.MatchString(line) {
		return nil
	}
	var refs []string
	for part := range strings.SplitSeq(strings.TrimSuffix(strings.TrimPrefix(line, "("), ")"), legendSep) {
		_, ref, _ := strings.Cut(part, legendRef)
		refs = append(refs, ref)
	}
	return refs
}

// BlockRefs returns, for each value of a summary's ledger block that carries
// a tag, the reference its legend names; nil when the block has no legend.
// text may still have the summary's tags and the archive's pointer.
func BlockRefs(text string) map[string]string {
	lines := blockLines(text)
	var refs []string
	for _, l := range lines {
		if r := parseLegend(l); r != nil {
			refs = r
		}
	}
	if refs == nil {
		return nil
	}
	out := map[string]string{}
	for _, l := range lines {
		v, ok := strings.CutPrefix(l, "- ")
		if !ok {
			continue
		}
		if value, n := splitTag(v); n > 0 && n <= len(refs) {
			out[spotlight.Unmark(value)] = refs[n-1]
		}
	}
	return out
}
