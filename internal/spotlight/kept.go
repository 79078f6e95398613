package spotlight

import "github.com/einocompact/einocompact/internal/substrings"

// Kept reports, for each of values, whether text keeps it: written verbatim
// or in its datamarked form (Datamark), the way the identifier ledger and
// the extractive summarizer quote tool text. For a value without blanks the
// two are the same. This is the one survival rule of an identifier: the
// compactor's ledger counts by it, and so does the einocompact CLI's report,
// so a value quoted marked («FAIL:ˆTestConvert») is kept for both.
func Kept(text string, values []string) []bool {
	// A datamarked form that differs from its value holds Space or the
	// escape, so a text with neither needs no datamarked form computed.
	all := values
	var marked []int // marked[i]: index in all of values[i]'s datamarked form, or -1
	if HasMarks(text) {
		marked = make([]int, len(values))
		all = make([]string, len(values), len(values)+len(values)/8)
		copy(all, values)
		for i, v := range values {
			marked[i] = -1
			if NeedsMark(v) {
				marked[i] = len(all)
				all = append(all, Datamark(v))
			}
		}
	}
	found := substrings.FoundIn(text, all)
	if marked == nil {
		return found
	}
	for i, j := range marked {
		found[i] = found[i] || j >= 0 && found[j]
	}
	return found[:len(values)]
}
