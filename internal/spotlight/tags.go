package spotlight

import (
	"regexp"
	"strings"
)

// Tag returns an expression matching anything a model could read as the
// opening or closing tag named name, in any case and spacing: "<name>",
// "</name>", "</ Name >", "<NAME attr>", and "</name" without its ">" at the
// end of a line. The "/" is the first group.
func Tag(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)<\s*(/?)\s*` + regexp.QuoteMeta(name) + `\b[^<>]*>?`)
}

// Escape replaces every match of tag (an expression from Tag whose name
// starts with "conversation_") in s by its HTML-escaped form: "<" becomes
// "&lt;" and a final ">" "&gt;", the rest kept. s comes back as it is, without
// allocating, when nothing can match.
func Escape(s string, tag *regexp.Regexp) string {
	return Replace(s, tag, func(t string) string {
		if inner, closed := strings.CutSuffix(t[1:], ">"); closed {
			return "&lt;" + inner + "&gt;"
		}
		return "&lt;" + t[1:]
	})
}

// Replace replaces every match of tag (an expression from Tag whose name
// starts with "conversation_") in s by fn of it.
func Replace(s string, tag *regexp.Regexp, fn func(string) string) string {
	if !mayHoldConversationTag(s) {
		return s
	}
	return tag.ReplaceAllStringFunc(s, fn)
}

// mayHoldConversationTag is a cheap test that s holds no "conversation_" in
// any case. "ation_" is its part without "s" or "k", the only ASCII letters
// that case folding matches with other letters (ſ, K), so any text the
// case-insensitive expression matches holds it in ASCII.
func mayHoldConversationTag(s string) bool {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '_')
		if i < 0 {
			return false
		}
		at := from + i
		if at >= 5 && asciiFoldEqual(s[at-5:at], "ation") {
			return true
		}
		from = at + 1
	}
}

func asciiFoldEqual(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		if s[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}
