package identifiers

import "math/bits"

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
//
// Only tokens holding a byte of "-./\\" or a digit are walked: a path holds
// "/", "\\" or ".", a UUID "-" and a hash a digit, so any other token (most
// of prose, two thirds of the benchmark conversation's bytes) holds none of
// them. Such bytes are found eight at a time (nextPathOrHexByte), and the
// token around one is walked from its start, found by stepping back to the
// byte that stopped the previous token: walking every token byte by byte,
// with a mispredicted branch at each token's and run's end, cost more than
// reading the text.
func scanPathsAndHex(text string, paths, hex []Match) ([]Match, []Match) {
	i := 0
	for {
		p := nextPathOrHexByte(text, i)
		if p < 0 {
			return paths, hex
		}
		// i is where a token may start (0, or at or just after a stop
		// byte), so the token holding p starts at i at the earliest.
		start := p
		for start > i && byteClass[text[start-1]]&classPathStop == 0 {
			start--
		}
		i = start
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
}

// nextPathOrHexByte is the index of the first byte of text[from:] that is
// one of "-./\\" or a digit, or -1. The first five are 0x2D to 0x39, one
// range: eight bytes at a time are tested for it and for "\\" with a few
// word-wide operations.
func nextPathOrHexByte(text string, from int) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
		low7 = 0x7f7f7f7f7f7f7f7f
	)
	i := from
	for ; i+8 <= len(text); i += 8 {
		w := text[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// Per byte b: high bit of ge set when b&0x7f >= 0x2d, of le when
		// b&0x7f <= 0x39; neither subtraction borrows from the next byte.
		// ASCII bytes only (^x): b&0x7f is b.
		ge := (x | high) - 0x2d*ones
		le := (0x39*ones | high) - (x & low7)
		inRange := ge & le &^ x & high
		// A byte of y is zero exactly where b is "\\"; its high bit in
		// zero is set then and only then (no carry crosses bytes).
		y := x ^ '\\'*ones
		zero := ^((y&low7 + low7) | y) & high
		if m := inRange | zero; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(text); i++ {
		if c := text[i]; c-'-' <= '9'-'-' || c == '\\' {
			return i
		}
	}
	return -1
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
