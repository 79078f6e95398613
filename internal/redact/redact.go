// Package redact keeps credentials that ride in URLs out of errors and logs.
//
// HTTP clients quote the URL they failed on (Post "http://key@host/v1/...":
// ...), and a provider's key sometimes sits in that URL: as its user name or
// password, or in its query. URLs masks those parts of every URL in a text,
// whatever the text; Error applies a masking to an error's message without
// losing what errors.Is matches.
package redact

import (
	"errors"
	"regexp"
	"strings"
)

// Mask replaces a credential.
const Mask = "xxxxx"

var (
	// urlUserinfo matches the user information of a URL in a text.
	urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s"'@]+@`)
	// urlQuery matches the query of a URL in a text.
	urlQuery = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s"'?#]*\?)[^\s"'#]+`)
)

// URLs returns s with the user information and the query of every URL in it
// replaced by Mask.
func URLs(s string) string {
	// Both expressions need a scheme's "://": most texts have none, and
	// the expressions cost far more than this look.
	if !strings.Contains(s, "://") {
		return s
	}
	s = urlUserinfo.ReplaceAllString(s, "${1}"+Mask+"@")
	return urlQuery.ReplaceAllString(s, "${1}"+Mask)
}

// KeyPrefixes start the API keys of common providers.
var KeyPrefixes = []string{"sk-", "sk_", "pk-", "rk-", "key-", "gsk_", "xai-", "hf_", "AIza"}

// keyToken matches a word that starts like a provider's key and goes on for
// at least 8 more key characters (12 in all for the shortest prefix, the
// length below which integration/fx does not take a prefixed word for a key).
var keyToken = regexp.MustCompile(`\b(?:` + quoteAll(KeyPrefixes) + `)[A-Za-z0-9_\-]{8,}`)

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(q, "|")
}

// Text returns s with URL credentials masked (URLs) and every word that
// starts like a provider's API key (KeyPrefixes) replaced by Mask. Long
// mixed letters-and-digits words are left alone: in conversation text they
// are mostly commit hashes and identifiers, not keys.
func Text(s string) string {
	s = URLs(s)
	for _, p := range KeyPrefixes {
		if strings.Contains(s, p) {
			return keyToken.ReplaceAllString(s, Mask)
		}
	}
	return s
}

// Error returns err with its message passed through mask, or err itself when
// mask changes nothing (nil stays nil). errors.Is sees through the result (a
// timeout stays a context.DeadlineExceeded), but it does not unwrap: code that
// dug out the client's own error and printed it would print the credentials.
func Error(err error, mask func(string) string) error {
	if err == nil {
		return nil
	}
	msg := mask(err.Error())
	if msg == err.Error() {
		return err
	}
	return &maskedError{msg: msg, cause: err}
}

// maskedError is an error whose message had credentials removed.
type maskedError struct {
	msg   string
	cause error
}

func (e *maskedError) Error() string { return e.msg }

// Is matches what the original error matches.
func (e *maskedError) Is(target error) bool { return errors.Is(e.cause, target) }
