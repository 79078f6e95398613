package identifiers

// UUIDs finds UUIDs in the 8-4-4-4-12 hex form, either case, also when glued
// to other words by hyphens ("req-<uuid>").
func UUIDs() Extractor { return hexExtractor{uuids: true} }

// Hashes finds hex strings of 7 to 128 characters that stand alone as a word
// (letters, digits and "_" around them end it) and hold at least one digit and
// one letter, so plain numbers and words such as "defaced" are not hashes.
// Runs that are part of a UUID are left to UUIDs.
func Hashes() Extractor { return hexExtractor{hashes: true} }

// hexExtractor is UUIDs or Hashes. Both read the same runs of the text, so
// Extract runs one scan for the two when both are listed.
type hexExtractor struct{ uuids, hashes bool }

func (h hexExtractor) Extract(text string) []Match { return appendHex(nil, text, h.uuids, h.hashes) }

const (
	minHashLen = 7
	maxHashLen = 128
)

var uuidGroups = [5]int{8, 4, 4, 4, 12}

// appendHex walks maximal runs of word characters and hyphens once,
// appending to out the UUIDs and/or hashes found in them.
func appendHex(out []Match, text string, uuids, hashes bool) []Match {
	i := 0
	for i < len(text) {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		// One table lookup per byte; the classes seen are gathered to
		// tell whether the run holds a hyphen.
		j := i
		var seen uint16
		for j < len(text) {
			c := byteClass[text[j]]
			if c&classHexRun == 0 {
				break
			}
			seen |= c
			j++
		}
		switch {
		case seen&classHyphen != 0:
			out = scanRun(text, i, j, uuids, hashes, out)
		case hashes && isHash(text[i:j]):
			// Most runs are plain words: no groups to split, nothing to allocate.
			out = append(out, Match{Kind: KindHash, Value: text[i:j], Start: i})
		}
		i = j
	}
	return out
}

// scanPathsAndHex is appendPaths and appendHex(nil, text, true, true) in one pass
// over text: a hex run (word bytes and hyphens, starting with a word byte)
// holds no byte that stops a path token, so each run lies inside one token
// and both are found as the token is walked. It appends the paths to paths
// and the UUIDs and hashes to hex, each in order.
func scanPathsAndHex(text string, paths, hex []Match) ([]Match, []Match) {
	i := 0
	for i < len(text) {
		if byteClass[text[i]]&classPathStop != 0 {
			i++
			continue
		}
		start := i
		var seen uint16
		for i < len(text) {
			c := byteClass[text[i]]
			if c&classPathStop != 0 {
				break
			}
			if c&classWord == 0 {
				seen |= c
				i++
				continue
			}
			// A word byte starts a hex run; the run is walked in a loop
			// of its own, one lookup and one test per byte: deciding at
			// every byte whether a run was open cost more than the
			// lookups.
			run, runSeen := i, c
			for i++; i < len(text); i++ {
				c = byteClass[text[i]]
				if c&classHexRun == 0 {
					break
				}
				runSeen |= c
			}
			seen |= runSeen
			// A run without a hyphen shorter than a hash holds nothing:
			// most words end here without a call.
			if runSeen&classHyphen != 0 || i-run >= minHashLen {
				hex = hexRun(text, run, i, runSeen, hex)
			}
		}
		if seen&classPathSpecial != 0 {
			paths = pathsInToken(text, start, i, seen, paths)
		}
	}
	return paths, hex
}

// hexRun reports the UUIDs and hashes of the run text[start:end], whose
// bytes' classes are seen, as appendHex does.
func hexRun(text string, start, end int, seen uint16, out []Match) []Match {
	switch {
	case seen&classHyphen != 0:
		return scanRun(text, start, end, true, true, out)
	case isHash(text[start:end]):
		return append(out, Match{Kind: KindHash, Value: text[start:end], Start: start})
	}
	return out
}

// scanRun splits text[start:end] at hyphens into groups. Five consecutive
// hex groups of lengths 8-4-4-4-12 make a UUID; any other hex group (a
// word-bounded piece, underscores being part of words) may be a hash.
func scanRun(text string, start, end int, uuids, hashes bool, out []Match) []Match {
	// Most runs have a few groups ("2026-12-02T10", a UUID): arrays on
	// the stack hold them without allocating.
	var groupsBuf [16][2]int
	var inUUIDBuf [16]bool
	groups := groupsBuf[:0]
	g := start
	for k := start; k <= end; k++ {
		if k == end || text[k] == '-' {
			groups = append(groups, [2]int{g, k})
			g = k + 1
		}
	}
	inUUID := inUUIDBuf[:0]
	if len(groups) <= len(inUUIDBuf) {
		inUUID = inUUIDBuf[:len(groups)]
	} else {
		inUUID = make([]bool, len(groups))
	}
	for k := 0; k+5 <= len(groups); k++ {
		ok := true
		for n := range 5 {
			gr := groups[k+n]
			if gr[1]-gr[0] != uuidGroups[n] || !allHex(text[gr[0]:gr[1]]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for n := range 5 {
			inUUID[k+n] = true
		}
		if uuids {
			out = append(out, Match{Kind: KindUUID, Value: text[groups[k][0]:groups[k+4][1]], Start: groups[k][0]})
		}
		k += 4
	}
	if !hashes {
		return out
	}
	for k, gr := range groups {
		s := text[gr[0]:gr[1]]
		if inUUID[k] || !isHash(s) {
			continue
		}
		out = append(out, Match{Kind: KindHash, Value: s, Start: gr[0]})
	}
	return out
}

func isHash(s string) bool {
	return len(s) >= minHashLen && len(s) <= maxHashLen && allHex(s) && hasDigitAndLetter(s)
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return s != ""
}

func hasDigitAndLetter(s string) bool {
	var d, l bool
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			d = true
		} else {
			l = true
		}
	}
	return d && l
}
