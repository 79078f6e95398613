package compaction

import ()

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
