package compactfx

import "net/url"

// RedactURL returns raw fit for logs and reports: the user information and
// the query, where endpoints sometimes carry credentials
// (https://user:key@host/v1, ...?api-key=...), are replaced by "xxxxx". A
// value that does not parse as a URL is replaced whole, since nothing tells
// what part of it is secret.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		u.RawQuery = "xxxxx"
	}
	return u.String()
}
