package archive

import (
	"strings"
	"unicode/utf8"
)

// paginate packs rendered messages into pages of at most maxChars code points,
// splitting a message only when it alone is longer than a page.
func paginate(blocks []string, maxChars int) []string {
	var pages []string
	var cur strings.Builder
	n := 0
	flush := func() {
		if cur.Len() > 0 {
			pages = append(pages, cur.String())
			cur.Reset()
			n = 0
		}
	}
	for _, b := range blocks {
		size := utf8.RuneCountInString(b)
		if n > 0 && n+1+size > maxChars {
			flush()
		}
		for size > maxChars {
			cut := runePrefix(b, maxChars)
			cur.WriteString(cut)
			flush()
			b = b[len(cut):]
			size -= maxChars
		}
		if n > 0 {
			cur.WriteByte('\n')
			n++
		}
		cur.WriteString(b)
		n += size
	}
	flush()
	return pages
}

// runePrefix is the first n code points of s.
func runePrefix(s string, n int) string {
	i := 0
	for range n {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}
