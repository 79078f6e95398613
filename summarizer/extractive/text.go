package extractive

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/einocompact/einocompact/internal/spotlight"
)

// line prepares a bullet's text: one line, blanks collapsed, summary tags
// defused, at most MaxLineRunes code points.
func (s *Summarizer) line(text string) string {
	return cut(defuse(collapse(text)), s.cfg.MaxLineRunes)
}

// emptyResult stands for a tool result without text. The summarizer writes
// it, so it is not marked.
const emptyResult = "(empty)"

// quote is a bullet that shows text copied from a tool result: prefix, a
// blank, then the text on one line, summary tags defused, marked as data
// (spotlight.Mark: between « and », ˆ for each blank; a text without blanks,
// such as a path or a hash, stays as it is), at most MaxLineRunes code
// points in all. The text is cut before it is marked, so the closing » is
// never cut off; when even a few code points of it do not fit after prefix,
// the bullet is prefix alone, cut.
func (s *Summarizer) quote(prefix, text string) string {
	prefix = collapse(prefix) + " "
	data := defuse(collapse(text))
	if data == "" {
		return s.line(prefix + emptyResult)
	}
	room := s.cfg.MaxLineRunes - runeLen(prefix)
	for n := room; n >= 4; {
		q := spotlight.Mark(cut(data, n))
		over := runeLen(q) - room
		if over <= 0 {
			return defuse(prefix) + q
		}
		n -= over
	}
	return s.line(strings.TrimSpace(prefix))
}

// collapse joins all runs of blanks (spotlight.IsBlank: white space, newlines
// included, and the code points that look blank or show nothing) into one
// space, so words a reader sees as separate are separate words when the
// text is marked.
func collapse(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < ' ' || c == 0x7f ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, spotlight.IsBlank), " ")
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
