package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
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

// tagReplacer defuses the compactor's wrapper tags in bullets by swapping "<"
// for "‹" (one code point for one), so a summary can never close the block a
// later round wraps it in.
var tagReplacer = strings.NewReplacer(
	"<conversation_summary>", "‹conversation_summary>",
	"</conversation_summary>", "‹/conversation_summary>",
	"<conversation_to_summarize>", "‹conversation_to_summarize>",
	"</conversation_to_summarize>", "‹/conversation_to_summarize>",
)

func defuse(s string) string {
	if !strings.Contains(s, "conversation_") {
		return s
	}
	return tagReplacer.Replace(s)
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
