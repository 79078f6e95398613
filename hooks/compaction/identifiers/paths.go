package identifiers

import "strings"

// Paths finds file-system paths:
//
//   - absolute, home or explicitly relative: "/etc/hosts", "~/x", "./a", "../b";
//   - Windows: "C:\dir\file" or "C:/dir";
//   - relative with a slash whose last part has an extension: "hooks/render.go";
//   - bare file names with a well-known extension: "go.mod", "main.py".
//
// Candidates are the text's tokens, cut at whitespace, quotes, brackets and
// "=,;|"; a ":" splits a token too ("a.go:42" gives "a.go"), except after a
// drive letter. Trailing ".,!?" are dropped. Tokens containing "://" are URLs,
// not paths. A relative path without extension ("and/or") is not reported.
func Paths() Extractor { return pathExtractor{} }

// pathExtractor is Paths. Extract runs it in one scan with UUIDs and Hashes
// when all three are listed (see scanPathsAndHex).
type pathExtractor struct{}

func (pathExtractor) Extract(text string) []Match { return appendPaths(nil, text) }

func appendPaths(out []Match, text string) []Match {
	i := 0
	for i < len(text) {
		if isPathStop(text[i]) {
			i++
			continue
		}
		// One table lookup per byte; the classes seen are gathered to
		// tell whether the token holds "/", "\\" or ".".
		j := i
		var seen uint16
		for j < len(text) {
			c := byteClass[text[j]]
			if c&classPathStop != 0 {
				break
			}
			seen |= c
			j++
		}
		if seen&classPathSpecial != 0 {
			out = pathsInToken(text, i, j, seen, out)
		}
		i = j
	}
	return out
}

func isPathStop(c byte) bool { return byteClass[c]&classPathStop != 0 }

// pathsInToken reports the paths of the token text[start:end], whose
// bytes' classes are seen: a token without ":" cannot hold "://", and one
// made of path characters only needs no pathChars test of its parts.
func pathsInToken(text string, start, end int, seen uint16, out []Match) []Match {
	tok := text[start:end]
	if seen&classColon != 0 && strings.Contains(tok, "://") {
		return out
	}
	odd := seen&classOddPath != 0
	k := start
	for k < end {
		stop := k
		if isDrive(text[k:end]) {
			stop = k + 2
		}
		for stop < end && text[stop] != ':' {
			stop++
		}
		if p := trimPathTail(text[k:stop]); isPath(p, odd) {
			out = append(out, Match{Kind: KindPath, Value: p, Start: k})
		}
		k = stop + 1
	}
	return out
}

func isDrive(s string) bool {
	return len(s) >= 4 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

func trimPathTail(s string) string {
	// strings.TrimRight(s, ".!?*"), without building the set of bytes on
	// every call.
	for len(s) > 0 {
		switch s[len(s)-1] {
		case '.', '!', '?', '*':
			s = s[:len(s)-1]
			continue
		}
		break
	}
	return s
}

// isPath reports whether p is a path; odd false says p holds only bytes
// pathChars accepts, and ":" only after a drive letter.
func isPath(p string, odd bool) bool {
	if p == "" || odd && !pathChars(p) {
		return false
	}
	if isDrive(p) {
		return true
	}
	slash := strings.IndexByte(p, '/')
	if slash < 0 {
		return knownExtension(p)
	}
	for _, prefix := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(p, prefix) {
			rest := p[len(prefix):]
			return !strings.HasPrefix(p, "//") && !onlySlashesAndDots(rest)
		}
	}
	return hasExtension(p[strings.LastIndexByte(p, '/')+1:])
}

// pathChars accepts letters, digits, non-ASCII and ._-~+@%/\ and ":" after a
// drive letter.
func pathChars(p string) bool {
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

// hasExtension reports a name "STEM.EXT" with a non-empty stem and an
// extension of 1 to 10 letters and digits holding a letter.
func hasExtension(name string) bool {
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

// knownExtension is hasExtension restricted to extensions that are almost
// always files, since a bare "a.b" is more often code ("fmt.Println") or a
// host name than a file.
func knownExtension(name string) bool {
	if !hasExtension(name) || strings.HasPrefix(name, ".") {
		return false
	}
	// hasExtension let through only ASCII letters and digits, so comparing
	// them lowered byte by byte is comparing strings.ToLower(ext). The
	// extensions are looked up by first letter: hashing each candidate for
	// a map was a tenth of the path scan, most tokens with a dot being code
	// ("req.Validate") rather than files.
	ext := name[strings.LastIndexByte(name, '.')+1:]
	f := lowerASCII(ext[0])
	if f < 'a' || f > 'z' {
		return false
	}
	for _, e := range fileExtensions[f-'a'] {
		if len(e) == len(ext) && equalFoldASCII(ext, e) {
			return true
		}
	}
	return false
}

// onlySlashesAndDots is strings.Trim(s, "/.") == "".
func onlySlashesAndDots(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '/' && s[i] != '.' {
			return false
		}
	}
	return true
}

// fileExtensions lists the well-known extensions, in lower case, by their
// first letter ('a' at 0).
var fileExtensions = func() (t [26][]string) {
	for _, e := range strings.Fields(`go mod sum py pyi ipynb js mjs cjs ts tsx jsx vue svelte rs java kt kts scala
		c h cc cpp cxx hpp cs swift rb php pl lua r sh bash zsh fish ps1 bat md markdown rst txt json jsonl ndjson
		yaml yml toml ini cfg conf xml html htm css scss less sql proto graphql csv tsv parquet lock gradle tf hcl
		dockerfile png jpg jpeg gif svg webp pdf zip tgz gz bz2 xz tar whl jar war wasm exe dll so dylib patch diff`) {
		t[e[0]-'a'] = append(t[e[0]-'a'], e)
	}
	return t
}()
