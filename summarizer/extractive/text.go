package extractive

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// line prepares a bullet's text: one line, blanks collapsed, summary tags
// defused, at most MaxLineRunes code points.
func (s *Summarizer) line(text string) string {
	return cut(defuse(collapse(text)), s.cfg.MaxLineRunes)
}

// collapse joins all runs of white space, newlines included, into one blank.
func collapse(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// cut shortens s to at most n code points, ending in "…" when it had to cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// wrapperTags match the compactor's wrapper tags in any case and spacing,
// as the compactor matches them.
var wrapperTags = []*regexp.Regexp{spotlight.Tag("conversation_summary"), spotlight.Tag("conversation_to_summarize")}

// defuse defuses the compactor's wrapper tags in bullets, in every spelling,
// by swapping their "<" for "‹" (one code point for one), so a summary can
// never close the block a later round wraps it in.
func defuse(s string) string {
	for _, tag := range wrapperTags {
		s = spotlight.Replace(s, tag, func(t string) string { return "‹" + t[1:] })
	}
	return s
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
