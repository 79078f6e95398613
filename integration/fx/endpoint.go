package compactfx

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaienv"
)

// EndpointModel is an eino-ext OpenAI client for an OpenAI-compatible
// endpoint, with a lifecycle: WarmUp optionally checks the endpoint with a
// one-token request so a wrong URL, model or key fails the application's
// start rather than its first compaction, and Close releases the idle
// connections of the HTTP client it owns.
//
// Errors of a misconfigured endpoint (a base URL without /v1, a missing or
// refused key, a host that does not resolve or does not listen) start with
// what is wrong and the setting that fixes it (openaienv.Endpoint.Explain).
//
// Its errors never carry the endpoint's credentials: the API key, and
// whatever of the base URL can hold one (see RedactURL), are replaced by
// "xxxxx" in every error Generate, Stream, a stream's Recv and WarmUp return,
// since the HTTP client quotes the full URL (Post "http://key@host/...").
type EndpointModel struct {
	*openai.ChatModel
	client *http.Client
	cfg    ModelConfig
	redact *redactor
	// ep names the settings in hints about misconfiguration.
	ep openaienv.Endpoint
	// role says whose endpoint this is, "the agent's model" or "the
	// summarizer", for the warm-up's error.
	role string
}

var (
	_ model.ToolCallingChatModel = (*EndpointModel)(nil)
	_ hooks.WarmUpper            = (*EndpointModel)(nil)
	_ hooks.Closer               = (*EndpointModel)(nil)
)

// NewEndpointModel returns a client for m. It does no I/O. Its hints name
// the agent model's settings (model.base_url and OPENAI_BASE_URL, ...).
func NewEndpointModel(ctx context.Context, m ModelConfig) (*EndpointModel, error) {
	return newEndpointModel(ctx, m, "model", EnvModelBaseURL, EnvModelAPIKey)
}

// newEndpointModel is NewEndpointModel with the config section and the
// environment variables that set m's base URL and key, for hints.
func newEndpointModel(ctx context.Context, m ModelConfig, section, envBaseURL, envAPIKey string) (*EndpointModel, error) {
	client := &http.Client{Timeout: m.Timeout.Std(), Transport: http.DefaultTransport.(*http.Transport).Clone()}
	cfg := &openai.ChatModelConfig{
		BaseURL:    m.BaseURL,
		APIKey:     m.APIKey,
		Model:      m.Model,
		HTTPClient: client,
	}
	if m.MaxTokens > 0 {
		cfg.MaxTokens = &m.MaxTokens
	}
	redact := newRedactor(m.BaseURL, m.APIKey)
	cm, err := openai.NewChatModel(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("compactfx: model %q at %s: %w", m.Model, RedactURL(m.BaseURL), redact.err(err))
	}
	ep := openaienv.Endpoint{BaseURL: m.BaseURL, APIKey: m.APIKey, Model: m.Model,
		BaseURLSetting: envBaseURL + " or " + section + ".base_url", APIKeySetting: envAPIKey + " or " + section + ".api_key"}
	role := "the agent's model"
	if section == "summarizer" || envBaseURL == EnvSummarizerBaseURL {
		role = "the summarizer"
	}
	return &EndpointModel{ChatModel: cm, client: client, cfg: m, redact: redact, ep: ep, role: role}, nil
}

// fail turns an error of the endpoint into the one the caller sees:
// explained, then with credentials masked.
func (e *EndpointModel) fail(err error) error { return e.redact.err(e.ep.Explain(err)) }

// Generate implements model.BaseChatModel; see EndpointModel for its errors.
func (e *EndpointModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := e.ChatModel.Generate(ctx, input, opts...)
	return out, e.fail(err)
}

// Stream implements model.BaseChatModel; see EndpointModel for its errors.
func (e *EndpointModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sr, err := e.ChatModel.Stream(ctx, input, opts...)
	if err != nil {
		return nil, e.fail(err)
	}
	same := func(m *schema.Message) (*schema.Message, error) { return m, nil }
	return schema.StreamReaderWithConvert(sr, same, schema.WithErrWrapper(e.fail)), nil
}

// WithTools implements model.ToolCallingChatModel, keeping the lifecycle.
func (e *EndpointModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := e.ChatModel.WithTools(tools)
	if err != nil {
		return nil, err
	}
	cm, ok := inner.(*openai.ChatModel)
	if !ok {
		return inner, nil
	}
	return &EndpointModel{ChatModel: cm, client: e.client, cfg: e.cfg, redact: e.redact, ep: e.ep, role: e.role}, nil
}

// WarmUp sends one tiny request when the config's warm_up is true; otherwise
// it does nothing. Its error says whose endpoint failed, and the cause.
func (e *EndpointModel) WarmUp(ctx context.Context) error {
	if !e.cfg.WarmUp {
		return nil
	}
	_, err := e.ChatModel.Generate(ctx, []*schema.Message{schema.UserMessage("Reply with OK.")}, model.WithMaxTokens(1))
	if err != nil {
		cause := e.fail(err)
		what := fmt.Sprintf("warm-up request to %s (%q) failed", e.role, e.cfg.Model)
		if at := RedactURL(e.cfg.BaseURL); !strings.Contains(cause.Error(), at) {
			what += " at " + at // the cause does not say where
		}
		return &warmUpError{what: what, err: cause}
	}
	return nil
}

// warmUpError is an endpoint's failed warm-up: the whole story of a failed
// start, so the module's lifecycle reports it without the layers it came
// through (registry, hook, compactor, failover chain), each of which only
// said "warm up" again.
type warmUpError struct {
	what string
	err  error
}

func (w *warmUpError) Error() string { return w.what + ": " + w.err.Error() }
func (w *warmUpError) Unwrap() error { return w.err }

// Close releases the HTTP client's idle connections. The model stays
// usable; a later call simply opens a new connection.
func (e *EndpointModel) Close(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}
