package openaitest

import (
	"fmt"
	"net/http"
	"strings"
)

// WithAPIKey makes the server require key as the bearer token of every
// request, as a provider does: any other request is answered with HTTP 401
// and an "invalid_api_key" error that does not echo the key sent. The clients
// ChatModel returns send key. Without this option any key is accepted.
func WithAPIKey(key string) Option {
	return func(s *Server) { s.apiKey = key }
}

// WithContextLimit makes the server refuse, with HTTP 400 and OpenAI's
// "context_length_exceeded" error, any request whose prompt is larger than
// tokens as Request.ApproxPromptTokens measures it, the way a provider
// answers a conversation longer than the model's context window. 0 (the
// default) sets no limit.
func WithContextLimit(tokens int) Option {
	return func(s *Server) {
		if tokens > 0 {
			s.contextLimit = tokens
		}
	}
}

// WithReasoning makes the server behave as a reasoning model (OpenAI's
// o-series and gpt-5): it refuses a request carrying max_tokens with HTTP
// 400 "unsupported_parameter", as those models do, and spends hiddenTokens of
// hidden reasoning before the reply's text. The reasoning counts against the
// request's max_completion_tokens: a cap too small for reasoning and text
// cuts the text (finish_reason "length"), and one no larger than the
// reasoning leaves the reply empty. Every reply reports usage: completion
// tokens include the reasoning, and completion_tokens_details.reasoning_tokens
// says how many were reasoning. A visible token is four bytes of text.
func WithReasoning(hiddenTokens int) Option {
	return func(s *Server) {
		s.reasoning = true
		s.reasoningTokens = max(hiddenTokens, 0)
	}
}

// providerError is an OpenAI-style error answer: its HTTP status and the
// error object's fields.
type providerError struct {
	status               int
	message, code, param string
}

// maxTokensRejection is the error a reasoning model gives a request that
// carries max_tokens, word for word.
func maxTokensRejection() *providerError {
	return &providerError{status: http.StatusBadRequest, code: "unsupported_parameter", param: "max_tokens",
		message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
}

// contextExceeded is the error a provider gives a prompt of n tokens over a
// context window of limit tokens.
func contextExceeded(limit, n int) *providerError {
	return &providerError{status: http.StatusBadRequest, code: "context_length_exceeded", param: "messages",
		message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, n)}
}

// badKey is the error for a missing or wrong API key. Unlike some providers
// it quotes no part of the key, so a test log never holds one.
func badKey(sent bool) *providerError {
	msg := "You didn't provide an API key. Provide it in the Authorization header as a Bearer token."
	if sent {
		msg = "Incorrect API key provided."
	}
	return &providerError{status: http.StatusUnauthorized, code: "invalid_api_key", message: msg}
}

// bearer is the token of an "Authorization: Bearer TOKEN" header, or "".
func bearer(h http.Header) string {
	v := h.Get("Authorization")
	if len(v) > len("Bearer ") && strings.EqualFold(v[:len("Bearer ")], "Bearer ") {
		return strings.TrimSpace(v[len("Bearer "):])
	}
	return ""
}

// reason applies the reasoning mode to reply for req: hidden tokens spent
// first, against max_completion_tokens, then the visible text in what is
// left, and the usage that reports both. The reply's own usage, when it has
// one, gives the prompt and visible tokens.
func (s *Server) reason(req *Request, reply *Reply) *Reply {
	out := *reply
	hidden, visible := s.reasoningTokens, (len(reply.Content)+3)/4
	for _, tc := range reply.ToolCalls {
		visible += (len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments) + 3) / 4
	}
	if reply.Usage != nil {
		visible = reply.Usage.CompletionTokens
	}
	if capTokens := req.MaxCompletionTokens; capTokens > 0 && hidden+visible > capTokens {
		hidden = min(hidden, capTokens)
		room := capTokens - hidden
		out.Content = cutBytes(reply.Content, room*4)
		out.ToolCalls = nil
		out.FinishReason = "length"
		visible = (len(out.Content) + 3) / 4
	}
	u := Usage{PromptTokens: req.ApproxPromptTokens()}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	u.CompletionTokens = hidden + visible
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.CompletionTokensDetails = &CompletionTokensDetails{ReasoningTokens: hidden}
	out.Usage = &u
	return &out
}

// cutBytes is s cut to at most n bytes on a UTF-8 boundary.
func cutBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}
