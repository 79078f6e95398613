package openaienv

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/cloudwego/eino-ext/components/model/openai"
	goopenai "github.com/meguminnnnnnnnn/go-openai"

	"github.com/einocompact/einocompact/internal/redact"
)

// Explain returns err with, in front, what it means for this endpoint's
// settings and how to fix them, when err is one a misconfiguration gives:
//
//   - HTTP 404 from a base URL whose path does not end in /v1: the hint to
//     add /v1 (OpenAI-compatible servers serve /v1/chat/completions);
//   - HTTP 404 from one that does: the model name may be wrong;
//   - HTTP 401 or 403: the key is missing, or refused;
//   - a host that does not resolve, or a refused connection: where the base
//     URL points, and how to point it elsewhere.
//
// Any other error, and nil, come back as they are. The cause stays in the
// chain (errors.Is and errors.As find it), and URLs in the hint carry no
// user information or query, where keys sometimes ride.
func (e Endpoint) Explain(err error) error {
	if err == nil {
		return nil
	}
	if hint := e.hint(err); hint != "" {
		return &explained{hint: hint, err: err}
	}
	return err
}

// explained is an error with a hint in front of it.
type explained struct {
	hint string
	err  error
}

func (x *explained) Error() string { return x.hint + ": " + x.err.Error() }
func (x *explained) Unwrap() error { return x.err }

// hint says what err means for e, or "".
func (e Endpoint) hint(err error) string {
	var already *explained
	if errors.As(err, &already) {
		return "" // explained once already, further down the chain
	}
	base := strings.TrimRight(e.BaseURL, "/")
	shown := fmt.Sprintf("%s (%s)", redact.URLs(base), e.baseURLSetting())
	if base == "" {
		base, shown = OpenAIBaseURL, fmt.Sprintf("%s (OpenAI's: %s is not set)", OpenAIBaseURL, e.baseURLSetting())
	}
	switch status, jsonBody := httpStatus(err); {
	case status == http.StatusNotFound && !strings.HasSuffix(pathOf(base), "/v1"):
		return fmt.Sprintf("the base URL %s has no /v1: the server answered 404 Not Found for %s/chat/completions, while OpenAI-compatible servers serve /v1/chat/completions; set %s to %s/v1",
			shown, redact.URLs(base), e.baseURLSetting(), redact.URLs(base))
	case status == http.StatusNotFound && jsonBody:
		return fmt.Sprintf("the server at %s answered 404 Not Found: it may not serve a model named %q", shown, e.ModelOrDefault())
	case status == http.StatusNotFound:
		return fmt.Sprintf("the server at %s answered 404 Not Found for %s/chat/completions: check %s", shown, redact.URLs(base), e.baseURLSetting())
	case (status == http.StatusUnauthorized || status == http.StatusForbidden) && e.APIKey == "":
		return fmt.Sprintf("%s is not set, and the server at %s answered %d %s: set %s to your key",
			e.apiKeySetting(), shown, status, http.StatusText(status), e.apiKeySetting())
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Sprintf("the server at %s refused the key in %s (%d %s): check it", shown, e.apiKeySetting(), status, http.StatusText(status))
	}
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve the host %q of %s: set %s to an endpoint this machine can reach", dnsErr.Name, shown, e.baseURLSetting())
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens at %s: start the server, or set %s to one that runs", shown, e.baseURLSetting())
	}
	return ""
}

// httpStatus is the HTTP status of the endpoint's error answer, if err is
// one, and whether its body was an OpenAI-style JSON error. The eino-ext
// client turns a JSON error into its own APIError and passes any other
// answer on as the underlying client's RequestError.
func httpStatus(err error) (status int, jsonBody bool) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode, true
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, false
	}
	return 0, false
}

// pathOf is the path of a base URL, without a trailing slash.
func pathOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.Path, "/")
}
