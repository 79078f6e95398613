package substrings

import "strings"

// FoundIn reports, for each of strs, whether it occurs in text, as
// NewSet(strs).Found(text) does, but without building an automaton over
// every string when most of them cannot occur. A string of four bytes or
// more is ruled out when one of its four-byte pieces (taken every four bytes,
// and the last four) is not among text's, tested in a bit table of text's
// pieces; what is left is searched for directly, or, when that would read
// text too many times, by an automaton over those strings alone. Either way
// the answer is exact: the table only rules out, never rules in.
//
// The identifier ledger asks about thousands of identifiers of a summary of
// a few kilobytes that holds few of them; building the automaton over all of
// them was most of the ledger's repair.
func FoundIn(text string, strs []string) []bool {
	out := make([]bool, len(strs))
	var pieces pieceTable
	pieces.fill(text)
	var cands []int
	candBytes := 0
	for i, s := range strs {
		if len(s) > len(text) {
			continue
		}
		if len(s) >= pieceLen && !pieces.mayHold(s) {
			continue
		}
		cands = append(cands, i)
		candBytes += len(s)
	}
	// A direct search reads text once per candidate, at several bytes per
	// nanosecond; the automaton costs tens of nanoseconds per byte of the
	// strings to build and a few per byte of text to run.
	if len(cands)*len(text) <= directSearchRatio*(candBytes+len(text)) {
		for _, i := range cands {
			out[i] = strings.Contains(text, strs[i])
		}
		return out
	}
	sub := make([]string, len(cands))
	for k, i := range cands {
		sub[k] = strs[i]
	}
	for k, found := range NewSet(sub).Found(text) {
		out[cands[k]] = found
	}
	return out
}

// directSearchRatio: candidates are searched for one by one while that reads
// at most this many bytes of text per byte the automaton would hold.
const directSearchRatio = 64

// pieceLen is the length of the pieces the table records.
const pieceLen = 4

// pieceTable is a bit per hash of a four-byte piece of a text: clear means
// no piece of the text has that hash.
type pieceTable [1 << 10]uint64

func pieceHash(s string, i int) uint32 {
	v := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return (v * 0x9E3779B1) >> 16
}

func (t *pieceTable) fill(text string) {
	for i := 0; i+pieceLen <= len(text); i++ {
		h := pieceHash(text, i)
		t[h>>6] |= 1 << (h & 63)
	}
}

func (t *pieceTable) has(s string, i int) bool {
	h := pieceHash(s, i)
	return t[h>>6]&(1<<(h&63)) != 0
}

// mayHold reports whether every piece of s, at every fourth byte and at its
// end, may be a piece of the text; s has at least pieceLen bytes.
func (t *pieceTable) mayHold(s string) bool {
	for i := 0; i+pieceLen <= len(s); i += pieceLen {
		if !t.has(s, i) {
			return false
		}
	}
	return t.has(s, len(s)-pieceLen)
}
