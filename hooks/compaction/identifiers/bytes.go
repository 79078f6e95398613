package identifiers

import "strings"

// Byte classes, looked up in one table: the scanners test every byte of
// megabytes of transcript, where a switch or a chain of comparisons per
// byte was a visible share of extraction.
const (
	classLetter uint16 = 1 << iota
	classDigit
	classWord // letter, digit or "_"
	classPathStop
	classURLStop
	classHexRun      // word byte or "-": what appendHex's runs are made of
	classHyphen      // "-"
	classPathSpecial // "/", "\\" or ".": a token holding one may be a path
	classColon       // ":": a token without one holds no "://" and no drive
	classOddPath     // a byte pathChars rejects, ":" aside
)

var byteClass = func() (t [256]uint16) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= classLetter | classWord
		t[c-'a'+'A'] |= classLetter | classWord
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= classDigit | classWord
	}
	t['_'] |= classWord
	for _, c := range " \t\n\r\f\v\"'`()[]{}<>=,;|" {
		t[c] |= classPathStop
	}
	for _, c := range " \t\n\r\f\v\"'`\\<>{}|^" {
		t[c] |= classURLStop
	}
	for c := range t {
		if t[c]&classWord != 0 {
			t[c] |= classHexRun
		}
	}
	t['-'] |= classHexRun | classHyphen
	for _, c := range "/\\." {
		t[c] |= classPathSpecial
	}
	t[':'] |= classColon
	for c := range t {
		if c < 0x80 && t[c]&(classLetter|classDigit) == 0 && !strings.ContainsRune("._-~+@%/\\:", rune(c)) {
			t[c] |= classOddPath
		}
	}
	return t
}()

func isLetter(c byte) bool   { return byteClass[c]&classLetter != 0 }
func isDigit(c byte) bool    { return byteClass[c]&classDigit != 0 }
func isWordByte(c byte) bool { return byteClass[c]&classWord != 0 }
