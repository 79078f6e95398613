package compactfx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// EndpointModel is an eino-ext OpenAI client for an OpenAI-compatible
// endpoint, with a lifecycle: WarmUp optionally checks the endpoint with a
// one-token request so a wrong URL, model or key fails the application's
// start rather than its first compaction, and Close releases the idle
// connections of the HTTP client it owns.
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
}

var (
	_ model.ToolCallingChatModel = (*EndpointModel)(nil)
	_ hooks.WarmUpper            = (*EndpointModel)(nil)
	_ hooks.Closer               = (*EndpointModel)(nil)
)

// NewEndpointModel returns a client for m. It does no I/O.
func NewEndpointModel(ctx context.Context, m ModelConfig) (*EndpointModel, error) {
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
	return &EndpointModel{ChatModel: cm, client: client, cfg: m, redact: redact}, nil
}

// Generate implements model.BaseChatModel; see EndpointModel for its errors.
func (e *EndpointModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := e.ChatModel.Generate(ctx, input, opts...)
	return out, e.redact.err(err)
}

// Stream implements model.BaseChatModel; see EndpointModel for its errors.
func (e *EndpointModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sr, err := e.ChatModel.Stream(ctx, input, opts...)
	if err != nil {
		return nil, e.redact.err(err)
	}
	same := func(m *schema.Message) (*schema.Message, error) { return m, nil }
	return schema.StreamReaderWithConvert(sr, same, schema.WithErrWrapper(e.redact.err)), nil
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
	return &EndpointModel{ChatModel: cm, client: e.client, cfg: e.cfg, redact: e.redact}, nil
}

// WarmUp sends one tiny request when the config's warm_up is true; otherwise
// it does nothing.
func (e *EndpointModel) WarmUp(ctx context.Context) error {
	if !e.cfg.WarmUp {
		return nil
	}
	_, err := e.ChatModel.Generate(ctx, []*schema.Message{schema.UserMessage("Reply with OK.")}, model.WithMaxTokens(1))
	if err != nil {
		return fmt.Errorf("compactfx: warm-up request to model %q at %s: %w", e.cfg.Model, RedactURL(e.cfg.BaseURL), e.redact.err(err))
	}
	return nil
}

// Close releases the HTTP client's idle connections. The model stays
// usable; a later call simply opens a new connection.
func (e *EndpointModel) Close(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}
