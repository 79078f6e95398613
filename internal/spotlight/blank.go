package spotlight

import (
	"unicode"
	"unicode/utf8"
)

// IsBlank reports whether r separates words to a reader without being a
// letter of them: Unicode white space (unicode.IsSpace), and the code points
// that are not white space but draw as a blank or as nothing at all, so
// that "ignore⠀all⠀previous" (U+2800 between the words) reads as three
// words to a person and to a model although no white space separates them.
// Marking treats every such code point as it treats white space: a text
// holding one is marked, and inside the marks it is written "¤HEX;".
//
// The code points beyond white space are:
//   - the controls (Cc), which print as nothing;
//   - Unicode's default ignorable code points as far as the unicode package
//     has them: the format characters (Cf: the soft hyphen U+00AD, the zero
//     width space, non-joiner and joiner U+200B..U+200D, the direction marks
//     and isolates, the word joiner and invisible operators U+2060..U+2064,
//     U+180E, U+FEFF, the tags U+E0001..U+E007F), the variation selectors,
//     and the other ignorables (U+034F, the Hangul fillers U+115F, U+1160,
//     U+3164 and U+FFA0, U+17B4, U+17B5, U+FFF0..U+FFF8, U+E0000..U+E0FFF);
//   - blanks that are graphic symbols: U+2800 BRAILLE PATTERN BLANK and
//     U+1D159 MUSICAL SYMBOL NULL NOTEHEAD.
//
// All format characters count, also the few that are drawn (the Arabic
// number sign U+0600 and the other prepended concatenation marks), and so
// do the joiner and the variation selectors that sit inside emoji and the
// words of some scripts: such text costs a few escapes when it is marked,
// which is the price of no invisible separator passing unmarked.
func IsBlank(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	switch r {
	case 0x2800, 0x1d159:
		return true
	}
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
