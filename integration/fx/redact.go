package compactfx

import (
	"net/url"
	"slices"
	"strings"

	"github.com/einocompact/einocompact/internal/redact"
)

// redacted replaces a credential in URLs, errors and logs.
const redacted = redact.Mask

// RedactURL returns raw fit for logs and reports: the user information and
// the query, where endpoints sometimes carry credentials
// (https://user:key@host/v1, https://key@host/v1, ...?api-key=...), are
// replaced by "xxxxx", and so is every host label and path segment that looks
// like an API key (a known key prefix such as "sk-", or 20 characters and
// more mixing letters and digits with at most two separators). A value that
// does not parse as a URL is replaced whole, since nothing tells what part of
// it is secret.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" {
		u.RawQuery = redacted
	}
	if labels := strings.Split(u.Hostname(), "."); slices.ContainsFunc(labels, looksLikeKey) {
		for i, l := range labels {
			if looksLikeKey(l) {
				labels[i] = redacted
			}
		}
		host := strings.Join(labels, ".")
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		u.Host = host
	}
	if segs := strings.Split(u.Path, "/"); slices.ContainsFunc(segs, looksLikeKey) {
		for i, s := range segs {
			if looksLikeKey(s) {
				segs[i] = redacted
			}
		}
		u.Path, u.RawPath = strings.Join(segs, "/"), ""
	}
	return u.String()
}

// looksLikeKey reports whether a host label or path segment is likely a
// credential rather than a name: it starts like a provider's key, or it is a
// long token of letters and digits (a model name such as
// gpt-4o-mini-2024-07-18 has more separators).
func looksLikeKey(s string) bool {
	if len(s) >= 12 && slices.ContainsFunc(redact.KeyPrefixes, func(p string) bool { return strings.HasPrefix(s, p) }) {
		return true
	}
	if len(s) < 20 {
		return false
	}
	letters, digits, seps := 0, 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letters++
		case r == '-' || r == '_':
			seps++
		default:
			return false
		}
	}
	return letters > 0 && digits > 0 && seps <= 2
}

// minSecret is the shortest credential searched for in free text: shorter
// values are not plausible keys, and replacing them would garble the text.
// redact.URLs still masks short user names and queries in URLs.
const minSecret = 6

// redactor removes an endpoint's credentials from text that may quote the
// endpoint: errors of the HTTP client (Post "http://key@host/...": ...),
// resolver errors naming the host, and the like.
type redactor struct {
	secrets []string // longest first, so a secret containing another goes whole
}

// newRedactor collects the credentials of an endpoint: its API key, and the
// parts of its base URL that carry or may carry one (user name, password,
// query values, key-like host labels and path segments), each also in its
// URL-escaped spellings.
func newRedactor(baseURL, apiKey string) *redactor {
	candidates := []string{apiKey}
	if u, err := url.Parse(baseURL); err == nil {
		if u.User != nil {
			pw, _ := u.User.Password()
			candidates = append(candidates, u.User.Username(), pw)
		}
		for _, vs := range u.Query() {
			candidates = append(candidates, vs...)
		}
		for _, part := range append(strings.Split(u.Hostname(), "."), strings.Split(u.Path, "/")...) {
			if looksLikeKey(part) {
				candidates = append(candidates, part)
			}
		}
	}
	var secrets []string
	for _, c := range candidates {
		for _, s := range []string{c, url.PathEscape(c), url.QueryEscape(c)} {
			if len(s) >= minSecret && !slices.Contains(secrets, s) {
				secrets = append(secrets, s)
			}
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	return &redactor{secrets: secrets}
}

// text returns s with the endpoint's credentials, and the user information
// and query of every URL in it, replaced by "xxxxx".
func (r *redactor) text(s string) string {
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return redact.URLs(s)
}

// err returns err with its message redacted by text; see redact.Error.
func (r *redactor) err(err error) error { return redact.Error(err, r.text) }
