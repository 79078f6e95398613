package compaction

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// The identifier ledger's archive references (issue 33 item 2). With an
// archive, a summary's marker names the reference its replaced span was
// archived under (HookConfig.Archive), and the summary ends with the line
// pointing at it. An identifier the ledger lists from the span a summary
// replaces is under that line's reference; one it carries from an earlier
// summary that was folded into this one was held by that summary's span,
// another reference. Such a line ends with a short tag, " [a1]", and the
// block with one legend line naming each tag's reference:
//
//	- deploy/prod.yaml
//	- registry.local/api@sha256:4f2a9c1e7b [a1]
//	(a1: recall reference arc1-...)
//
// A value the ledger lists has no blank (Mark replaces every one), so the
// tag after a space is never part of it. Without an archive no summary has
// a reference: no tag, no legend.

// ledgerTag is the tag of a line whose identifier is under the n-th
// reference of the legend (n >= 1); "" for n 0.
func ledgerTag(n int) string {
	if n <= 0 {
		return ""
	}
	return " [a" + strconv.Itoa(n) + "]"
}

// ledgerTagged matches a block line's value and tag.
var ledgerTagged = regexp.MustCompile(`^(\S+) \[a([1-9][0-9]*)\]$`)

// splitLedgerTag splits a block line's text (after "- ") into its value and
// its tag's number, 0 when it has none.
func splitLedgerTag(line string) (value string, tag int) {
	m := ledgerTagged.FindStringSubmatch(line)
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

// ledgerLegend is the line naming refs[i] as tag i+1, with its leading
// line break; "" without refs.
func ledgerLegend(refs []string) string {
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

// parseLedgerLegend returns the references a legend line names, in tag
// order, or nil when line is not one.
func parseLedgerLegend(line string) []string {
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

// tagLedgerRefs numbers the references of lost's entries in their order of
// first appearance, setting each entry's tag, and returns the references
// and, for each k, how many of them the first k entries use.
func tagLedgerRefs(lost []ledgerEntry) (refs []string, used []int) {
	used = make([]int, len(lost)+1)
	seen := map[string]int{}
	for i := range lost {
		e := &lost[i]
		e.tag = 0
		if e.ref != "" {
			n, ok := seen[e.ref]
			if !ok {
				refs = append(refs, e.ref)
				n = len(refs)
				seen[e.ref] = n
			}
			e.tag = n
		}
		used[i+1] = max(used[i], e.tag)
	}
	return refs, used
}

// ledgerBlockRefs returns, for each value of a summary's ledger block that
// carries a tag, the reference its legend names.
func ledgerBlockRefs(lines []string) map[string]string {
	var refs []string
	for _, l := range lines {
		if r := parseLedgerLegend(l); r != nil {
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
		if value, n := splitLedgerTag(v); n > 0 && n <= len(refs) {
			out[spotlight.Unmark(value)] = refs[n-1]
		}
	}
	return out
}
