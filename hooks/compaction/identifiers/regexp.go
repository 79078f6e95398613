package identifiers

import "regexp"

// Regexp makes an Extractor of a regular expression, for identifiers the
// defaults miss (ticket keys, order numbers, ...). It reports the first
// capturing group when re has one and it matched, else the whole match, with
// the given kind. Matching is line by line, so a match never spans lines.
func Regexp(kind Kind, re *regexp.Regexp) Extractor {
	return ExtractorFunc(func(text string) []Match {
		var out []Match
		eachLine(text, func(line string, off int) {
			for _, loc := range re.FindAllStringSubmatchIndex(line, -1) {
				s, e := loc[0], loc[1]
				if len(loc) >= 4 && loc[2] >= 0 {
					s, e = loc[2], loc[3]
				}
				if e > s {
					out = append(out, Match{Kind: kind, Value: line[s:e], Start: off + s})
				}
			}
		})
		return out
	})
}
