package identifiers

import "strings"

// URLs finds SCHEME://REST, where SCHEME is 2 to 16 letters, digits, "+", "-"
// or "." starting with a letter (http, https, postgres, s3, git+ssh, ...).
// REST runs to whitespace, a quote, a backslash (so JSON escapes end it) or
// one of <>{}|^; trailing sentence punctuation and unbalanced closing
// brackets are left out.
func URLs() Extractor { return appender(appendURLs) }

func appendURLs(out []Match, text string) []Match {
	from := 0
	for {
		i := strings.Index(text[from:], "://")
		if i < 0 {
			return out
		}
		sep := from + i
		from = sep + 3
		start := sep
		for start > 0 && isSchemeByte(text[start-1]) {
			start--
		}
		for start < sep && !isLetter(text[start]) {
			start++
		}
		if n := sep - start; n < 2 || n > 16 {
			continue
		}
		end := from
		for end < len(text) && !isURLStop(text[end]) {
			end++
		}
		end = trimURLTail(text, from, end)
		if end == from {
			continue
		}
		out = append(out, Match{Kind: KindURL, Value: text[start:end], Start: start})
		from = end
	}
}

func isSchemeByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '+' || c == '-' || c == '.'
}

func isURLStop(c byte) bool { return byteClass[c]&classURLStop != 0 }

// trimURLTail drops trailing punctuation that more likely ends the sentence
// than the URL, and a closing bracket with no opening one inside the URL
// ("(see https://x/y)").
func trimURLTail(text string, from, end int) int {
	for end > from {
		c := text[end-1]
		switch c {
		case '.', ',', ';', ':', '!', '?', '*':
			end--
			continue
		case ')', ']':
			open := byte('(')
			if c == ']' {
				open = '['
			}
			if strings.Count(text[from:end], string(open)) < strings.Count(text[from:end], string(c)) {
				end--
				continue
			}
		}
		return end
	}
	return end
}
