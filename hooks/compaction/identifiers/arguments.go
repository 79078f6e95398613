package identifiers

import (
	"strings"
	"unicode"
)

// DefaultArgumentKeys are the argument names Arguments looks for by default:
// path, file, filename, dir, url, uri, id, query, command and cmd.
func DefaultArgumentKeys() []string {
	return []string{"path", "file", "filename", "dir", "url", "uri", "id", "query", "command", "cmd"}
}

// Arguments finds the values of JSON members whose key is named like one of
// keys: equal to it ignoring case, or ending in it after "_", "-" or a
// camel-case hump ("file_path", "userId", "targetURL"). String values (1 to
// 300 bytes, on one line, escapes kept as written) and numbers are reported.
// With no keys it finds nothing.
func Arguments(keys ...string) Extractor {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		if k != "" {
			names = append(names, strings.ToLower(k))
		}
	}
	return lineAppender{
		fn: func(out []Match, line string, off int, memo *quoteMemo) []Match {
			return argumentsLine(out, line, off, names, memo)
		},
		needs: `"`,
	}
}

const maxArgument = 300

func argumentsLine(out []Match, line string, off int, names []string, memo *quoteMemo) []Match {
	if len(names) == 0 {
		return out
	}
	for from := 0; ; {
		i := strings.IndexByte(line[from:], '"')
		if i < 0 {
			return out
		}
		open := from + i
		end := memo.closing(line, open)
		if end < 0 {
			return out
		}
		from = end + 1
		key := line[open+1 : end]
		v := skipBlanks(line, end+1)
		if v >= len(line) || line[v] != ':' {
			continue
		}
		v = skipBlanks(line, v+1)
		value, start := argumentValue(line, v, memo)
		if value == "" || !keyMatches(key, names) {
			continue
		}
		out = append(out, Match{Kind: KindArgument, Value: value, Start: off + start})
		if line[v] == '"' {
			from = start + len(value) + 1
		}
	}
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// argumentValue reads a JSON string or number at line[v:], returning it as
// written (a string without its quotes) and where it starts.
func argumentValue(line string, v int, memo *quoteMemo) (string, int) {
	if v >= len(line) {
		return "", v
	}
	if line[v] == '"' {
		end := memo.closing(line, v)
		if end < 0 || end-v-1 > maxArgument {
			return "", v
		}
		return line[v+1 : end], v + 1
	}
	e := v
	if e < len(line) && line[e] == '-' {
		e++
	}
	for e < len(line) && (isDigit(line[e]) || line[e] == '.') {
		e++
	}
	if e == v || !isDigit(line[e-1]) {
		return "", v
	}
	return line[v:e], v
}

func keyMatches(key string, names []string) bool {
	for _, n := range names {
		if len(key) < len(n) {
			continue
		}
		cut := len(key) - len(n)
		// A name ending in an ASCII letter other than k and s (whose case
		// folds include the Kelvin sign and the long s) can only match a key
		// ending in that letter, in either case: test that before EqualFold.
		if l := n[len(n)-1]; 'a' <= l && l <= 'z' && l != 'k' && l != 's' && key[len(key)-1]|0x20 != l {
			continue
		}
		if !strings.EqualFold(key[cut:], n) {
			continue
		}
		if cut == 0 {
			return true
		}
		if sep := key[cut-1]; sep == '_' || sep == '-' || unicode.IsUpper(rune(key[cut])) && !unicode.IsUpper(rune(sep)) {
			return true
		}
	}
	return false
}
