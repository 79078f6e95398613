package ledger

// The identifier ledger's archive references (issue 33 item 2). With an
// archive, a summary's marker names the reference its replaced span was
// archived under (HookConfig.Archive), and the summary ends with the line
// pointing at it. An identifier carried from an earlier summary folded into
// this one was held by that summary's span, another reference: its line
// in the block ends with a tag and the block with a legend naming each
// tag's reference (summarytext.Tag, summarytext.Legend, read back by
// summarytext.BlockRefs). Without an archive no summary has a reference: no
// tag, no legend.

// tagLedgerRefs numbers the references of lost's entries in their order of
// first appearance, setting each entry's tag, and returns the references
// and, for each k, how many of them the first k entries use.
func tagLedgerRefs(lost []Entry) (refs []string, used []int) {
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
