package identifiers

// Reference copies of the extractors as they were before their byte-level
// speed-ups (issue 13), kept to prove the fast versions find the same
// identifiers: see ReferenceExtractors in export_test.go.

import "strings"

func refFindQuotedErrors(text string) []Match {
	var out []Match
	eachLine(text, func(line string, off int) {
		if !strings.ContainsAny(line, "\"'`") {
			return
		}
		i := 0
		for i < len(line) {
			q := line[i]
			if q != '"' && q != '\'' && q != '`' || q == '\'' && i > 0 && isWordByte(line[i-1]) {
				i++
				continue
			}
			j := refClosingQuote(line, i)
			if j < 0 {
				i++
				continue
			}
			if s := line[i+1 : j]; refIsErrorText(s) {
				out = append(out, Match{Kind: KindError, Value: s, Start: off + i + 1})
			}
			i = j + 1
		}
	})
	return out
}

func refClosingQuote(line string, open int) int {
	q := line[open]
	for j := open + 1; j < len(line); j++ {
		switch c := line[j]; {
		case c == '\\' && q == '"':
			j++
		case c == q:
			if q == '\'' && j+1 < len(line) && isWordByte(line[j+1]) {
				continue
			}
			return j
		}
	}
	return -1
}

func refIsErrorText(s string) bool {
	if len(s) < minQuoted || len(s) > maxQuoted || !strings.ContainsAny(s, " :") {
		return false
	}
	low := strings.ToLower(s)
	for _, w := range errorWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

func refFindErrorLines(text string) []Match {
	var out []Match
	eachLine(text, func(line string, off int) {
		start := 0
		if strings.HasPrefix(line, "[") {
			if k := strings.Index(line, "] "); k > 0 {
				start = k + 2
			}
		}
		for start < len(line) && (line[start] == ' ' || line[start] == '\t' || line[start] == '-') {
			start++
		}
		rest := strings.TrimRight(line[start:], " \t\r")
		if len(rest) > maxQuoted || !refStartsWithErrorWord(rest) {
			return
		}
		out = append(out, Match{Kind: KindError, Value: rest, Start: off + start})
	})
	return out
}

func refStartsWithErrorWord(s string) bool {
	n := 0
	for n < len(s) && (isWordByte(s[n]) || s[n] == '.') {
		n++
	}
	if n == 0 || n >= len(s)-1 {
		return false
	}
	w := s[:n]
	if strings.HasSuffix(w, "Error") || strings.HasSuffix(w, "Exception") {
		return true
	}
	for _, e := range errorLineWords {
		if w == e {
			return true
		}
	}
	return false
}

func refFindPaths(text string) []Match {
	var out []Match
	i := 0
	for i < len(text) {
		if isPathStop(text[i]) {
			i++
			continue
		}
		j := i
		candidate := false
		for j < len(text) && !isPathStop(text[j]) {
			if c := text[j]; c == '/' || c == '\\' || c == '.' {
				candidate = true
			}
			j++
		}
		if candidate {
			out = refPathsInToken(text, i, j, out)
		}
		i = j
	}
	return out
}

func refPathsInToken(text string, start, end int, out []Match) []Match {
	tok := text[start:end]
	if strings.Contains(tok, "://") {
		return out
	}
	k := start
	for k < end {
		stop := k
		if refIsDrive(text[k:end]) {
			stop = k + 2
		}
		for stop < end && text[stop] != ':' {
			stop++
		}
		if p := refTrimPathTail(text[k:stop]); refIsPath(p) {
			out = append(out, Match{Kind: KindPath, Value: p, Start: k})
		}
		k = stop + 1
	}
	return out
}

func refIsDrive(s string) bool {
	return len(s) >= 4 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

func refTrimPathTail(s string) string {
	return strings.TrimRight(s, ".!?*")
}

func refIsPath(p string) bool {
	if p == "" || !refPathChars(p) {
		return false
	}
	if refIsDrive(p) {
		return true
	}
	slash := strings.IndexByte(p, '/')
	if slash < 0 {
		return refKnownExtension(p)
	}
	for _, prefix := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(p, prefix) {
			rest := p[len(prefix):]
			return !strings.HasPrefix(p, "//") && strings.Trim(rest, "/.") != ""
		}
	}
	return refHasExtension(p[strings.LastIndexByte(p, '/')+1:])
}

func refPathChars(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isLetter(c) || isDigit(c) || c >= 0x80 {
			continue
		}
		switch c {
		case '.', '_', '-', '~', '+', '@', '%', '/', '\\':
			continue
		case ':':
			if i == 1 {
				continue
			}
		}
		return false
	}
	return true
}

func refHasExtension(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 || len(name)-dot-1 > 10 {
		return false
	}
	ext := name[dot+1:]
	letter := false
	for i := 0; i < len(ext); i++ {
		switch c := ext[i]; {
		case isLetter(c):
			letter = true
		case isDigit(c):
		default:
			return false
		}
	}
	return letter
}

func refKnownExtension(name string) bool {
	if !refHasExtension(name) || strings.HasPrefix(name, ".") {
		return false
	}
	_, ok := refFileExtensions[strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])]
	return ok
}

func refScanHex(text string, uuids, hashes bool) []Match {
	var out []Match
	i := 0
	for i < len(text) {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		hyphen := false
		for j < len(text) && (isWordByte(text[j]) || text[j] == '-') {
			hyphen = hyphen || text[j] == '-'
			j++
		}
		switch {
		case hyphen:
			out = scanRun(text, i, j, uuids, hashes, out)
		case hashes && isHash(text[i:j]):
			out = append(out, Match{Kind: KindHash, Value: text[i:j], Start: i})
		}
		i = j
	}
	return out
}

// refFileExtensions is the set of well-known extensions as a map, the way
// knownExtension looked them up before it read them by first letter.
var refFileExtensions = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, list := range fileExtensions {
		for _, e := range list {
			m[e] = struct{}{}
		}
	}
	return m
}()
