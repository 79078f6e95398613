package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
)

// Server is a fake chat-completions endpoint on a loopback httptest.Server.
// It is safe for concurrent use.
type Server struct {
	srv             *httptest.Server
	respond         Responder
	chunkSize       int
	clientTimeout   time.Duration
	apiKey          string // WithAPIKey; "" accepts any key
	contextLimit    int    // WithContextLimit; 0: none
	reasoning       bool   // WithReasoning
	reasoningTokens int

	mu       sync.Mutex
	requests []*Request
	seq      int
}

// Option configures a Server.
type Option func(*Server)

// WithChunkSize sets how many bytes of content or tool-call arguments go into
// one streamed chunk (default 8), so tests see several chunks per reply.
func WithChunkSize(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.chunkSize = n
		}
	}
}

// DefaultClientTimeout bounds each request of the clients Client and
// ChatModel return, so a test whose server never answers fails instead of
// hanging until the test binary's own timeout.
const DefaultClientTimeout = 30 * time.Second

// WithClientTimeout sets the per-request timeout of the clients Client and
// ChatModel return (default DefaultClientTimeout).
func WithClientTimeout(d time.Duration) Option {
	return func(s *Server) {
		if d > 0 {
			s.clientTimeout = d
		}
	}
}

// New starts a server answering with respond. The caller must Close it.
func New(respond Responder, opts ...Option) *Server {
	s := &Server{respond: respond, chunkSize: 8, clientTimeout: DefaultClientTimeout}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Start is New for tests: the server is closed when tb's test ends.
func Start(tb testing.TB, respond Responder, opts ...Option) *Server {
	tb.Helper()
	s := New(respond, opts...)
	tb.Cleanup(s.Close)
	return s
}

// Close shuts the server down and blocks until its requests finished.
func (s *Server) Close() { s.srv.Close() }

// BaseURL is the value for the client's BaseURL: requests go to
// BaseURL()+"/chat/completions".
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Client is an HTTP client wired to the server, with the server's client
// timeout. Each call returns a new client sharing the server's transport.
func (s *Server) Client() *http.Client {
	c := *s.srv.Client()
	c.Timeout = s.clientTimeout
	return &c
}

// ChatModel returns the real eino-ext OpenAI chat model pointed at the
// server, so tests exercise the production client's wire handling. Its
// requests time out after the server's client timeout (the eino-ext
// Timeout field is ignored when an HTTPClient is given, so the timeout
// lives on the client).
func (s *Server) ChatModel(ctx context.Context) (*openai.ChatModel, error) {
	return openai.NewChatModel(ctx, s.Config())
}

// Config is the eino-ext client configuration ChatModel uses: the server's
// BaseURL, its APIKey, the model name "fake-model" and Client. Change what a
// test needs (a model name, a temperature, eino-ext's MaxCompletionTokens)
// and pass it to openai.NewChatModel; each call returns a new value.
func (s *Server) Config() *openai.ChatModelConfig {
	return &openai.ChatModelConfig{
		BaseURL:    s.BaseURL(),
		APIKey:     s.APIKey(),
		Model:      "fake-model",
		HTTPClient: s.Client(),
	}
}

// APIKey is the key the server requires (WithAPIKey), or "test-key" when it
// accepts any.
func (s *Server) APIKey() string {
	if s.apiKey != "" {
		return s.apiKey
	}
	return "test-key"
}

// Requests returns every request seen so far, oldest first, including
// rejected ones. The slice is a copy; the requests must not be modified.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Rejected returns the requests the server refused before its Responder saw
// them: HTTP 401 for a wrong API key, HTTP 400 for an unparsable body, for
// max_tokens sent to a reasoning model, for breaking the tool-call pairing
// rule or for a prompt over the context limit.
func (s *Server) Rejected() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Rejected != "" {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) record(r *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	s.seq++
	return s.seq
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	if hr.Method != http.MethodPost || !strings.HasSuffix(hr.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "not found: "+hr.Method+" "+hr.URL.Path)
		return
	}
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	req := &Request{Path: hr.URL.Path, Body: body, APIKey: bearer(hr.Header)}
	refusal := s.check(req)
	if refusal != nil {
		req.Rejected = refusal.message
	}
	seq := s.record(req)
	if refusal != nil {
		writeProviderError(w, refusal)
		return
	}
	reply, err := s.respond(req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if reply == nil {
		writeError(w, http.StatusInternalServerError, "openaitest: responder returned no reply")
		return
	}
	if reply.Status != 0 {
		writeError(w, reply.Status, reply.ErrorMessage)
		return
	}
	if s.reasoning {
		reply = s.reason(req, reply)
	}
	id := fmt.Sprintf("chatcmpl-%d", seq)
	if req.Stream {
		s.writeStream(w, id, req, reply)
		return
	}
	writeJSON(w, completion{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []choice{{Message: &responseMessage{Role: "assistant", Content: reply.Content, ToolCalls: withType(reply.ToolCalls)}, FinishReason: ptr(finishReason(reply))}},
		Usage:   reply.Usage,
	})
}

// check parses req's body into its fields and returns why a provider would
// refuse it, in the order one checks: the key, the body, the parameters,
// the conversation, its size. nil: the Responder answers it.
func (s *Server) check(req *Request) *providerError {
	if s.apiKey != "" && req.APIKey != s.apiKey {
		return badKey(req.APIKey != "")
	}
	var rb requestBody
	if err := json.Unmarshal(req.Body, &rb); err != nil {
		return &providerError{status: http.StatusBadRequest, message: "invalid JSON: " + err.Error()}
	}
	req.Model, req.Messages, req.Tools, req.Stream = rb.Model, rb.Messages, rb.Tools, rb.Stream
	req.MaxTokens, req.MaxCompletionTokens = rb.MaxTokens, rb.MaxCompTokens
	req.IncludeUsage = rb.StreamOptions != nil && rb.StreamOptions.IncludeUsage
	if s.reasoning && req.MaxTokens > 0 {
		return maxTokensRejection()
	}
	if err := CheckToolPairing(rb.Messages); err != nil {
		return &providerError{status: http.StatusBadRequest, message: err.Error()}
	}
	if n := req.ApproxPromptTokens(); s.contextLimit > 0 && n > s.contextLimit {
		return contextExceeded(s.contextLimit, n)
	}
	return nil
}

// writeStream sends the reply the way OpenAI streams: a role chunk, content
// pieces, each tool call as a header chunk (id, name) followed by argument
// pieces, a finish chunk, and a usage-only chunk when asked for.
func (s *Server) writeStream(w http.ResponseWriter, id string, req *Request, reply *Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	send := func(c completion) {
		c.ID, c.Object, c.Created, c.Model = id, "chat.completion.chunk", created, req.Model
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d responseMessage) completion {
		return completion{Choices: []choice{{Delta: &d}}}
	}
	send(delta(responseMessage{Role: "assistant"}))
	for _, piece := range split(reply.Content, s.chunkSize) {
		send(delta(responseMessage{Content: piece}))
	}
	for i, tc := range withType(reply.ToolCalls) {
		head := ToolCall{Index: ptr(i), ID: tc.ID, Type: tc.Type, Function: FunctionCall{Name: tc.Function.Name}}
		send(delta(responseMessage{ToolCalls: []ToolCall{head}}))
		for _, piece := range split(tc.Function.Arguments, s.chunkSize) {
			send(delta(responseMessage{ToolCalls: []ToolCall{{Index: ptr(i), Function: FunctionCall{Arguments: piece}}}}))
		}
	}
	send(completion{Choices: []choice{{Delta: &responseMessage{}, FinishReason: ptr(finishReason(reply))}}})
	if req.IncludeUsage && reply.Usage != nil {
		send(completion{Choices: []choice{}, Usage: reply.Usage})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func finishReason(r *Reply) string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

func withType(calls []ToolCall) []ToolCall {
	out := make([]ToolCall, len(calls))
	for i, tc := range calls {
		if tc.Type == "" {
			tc.Type = "function"
		}
		out[i] = tc
	}
	return out
}

// split cuts s into pieces of at most n bytes without breaking UTF-8
// sequences, since each piece travels as a JSON string.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8Start(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func ptr[T any](v T) *T { return &v }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeProviderError(w, &providerError{status: status, message: msg})
}

// writeProviderError answers with OpenAI's error body: message, type
// ("server_error" for a 5xx, else "invalid_request_error"), param and code
// (null when not set).
func writeProviderError(w http.ResponseWriter, pe *providerError) {
	var e apiError
	e.Error.Message = pe.message
	e.Error.Type = "invalid_request_error"
	if pe.status >= 500 {
		e.Error.Type = "server_error"
	}
	if pe.code != "" {
		e.Error.Code = &pe.code
	}
	if pe.param != "" {
		e.Error.Param = &pe.param
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(pe.status)
	_ = json.NewEncoder(w).Encode(e)
}
