// Package promptcache sends OpenAI's prompt_cache_key with every call of an
// eino-ext OpenAI chat model, one key per conversation.
//
// OpenAI routes requests that share a long prefix to the same cache; the
// prompt_cache_key request field tells it which requests belong together,
// so a conversation's calls (the agent's, and a cache-aligned summarizer's,
// see compaction.SummarizationConfig.CacheAligned) keep hitting the cache
// that holds their prefix. The eino-ext client (components/model/openai
// v0.1.13) has no field for it, but it sends extra body fields given per
// call with openai.WithExtraFields; Model adds the key that way.
//
// A key is never shared across tenants by default: WithConversation takes
// the tenant and the conversation, and the key is a hash of both, so two
// tenants that happen to use the same conversation id get different keys.
// A call whose ctx carries no conversation is sent without a key, as if
// the model were not wrapped.
//
//	chat = promptcache.Model(chat, &promptcache.Config{ExtraFields: cfg.ExtraFields})
//	ctx = promptcache.WithConversation(ctx, tenantID, conversationID)
//	result, err := agent.Run(ctx, messages)
//
// The summarizer's calls carry the run's ctx values (a CompactionHook keeps
// them, in the background too), so a summarizer model wrapped the same way
// sends the same key.
package promptcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"strconv"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Field is the request body field the key is sent in.
const Field = "prompt_cache_key"

// Config configures Model.
type Config struct {
	// ExtraFields are the extra body fields the model was configured with
	// (openai.ChatModelConfig.ExtraFields). The eino-ext client replaces
	// them, rather than adding to them, with the fields of a per-call
	// openai.WithExtraFields, so Model sends them with the key. Default
	// none.
	ExtraFields map[string]any
}

type conversationKey struct{}

// WithConversation returns a ctx whose calls through a Model carry the
// prompt cache key of this tenant's conversation. Both must be non-empty;
// otherwise ctx is returned unchanged and calls carry no key.
func WithConversation(ctx context.Context, tenant, conversation string) context.Context {
	if tenant == "" || conversation == "" {
		return ctx
	}
	return context.WithValue(ctx, conversationKey{}, Key(tenant, conversation))
}

// Key is the prompt cache key of a tenant's conversation: "ec-" and the
// first 32 hex digits of the SHA-256 of the tenant's length in bytes, ":",
// the tenant and the conversation. The length keeps ("a", "bc") and
// ("ab", "c") apart whatever bytes the ids hold; hashing keeps tenant and
// conversation ids out of the provider's logs.
func Key(tenant, conversation string) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(len(tenant)) + ":" + tenant + conversation))
	return "ec-" + hex.EncodeToString(sum[:16])
}

// KeyOf returns the key WithConversation put into ctx.
func KeyOf(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(conversationKey{}).(string)
	return k, ok
}

// Model wraps an eino-ext OpenAI chat model (or any chat model that reads
// openai.WithExtraFields) so that every call whose ctx carries a
// conversation (WithConversation) sends its prompt_cache_key. A nil cfg
// means no configured extra fields.
func Model(inner model.ToolCallingChatModel, cfg *Config) (model.ToolCallingChatModel, error) {
	if inner == nil {
		return nil, errors.New("promptcache: nil chat model")
	}
	m := &keyed{inner: inner}
	if cfg != nil {
		m.extra = maps.Clone(cfg.ExtraFields)
	}
	return m, nil
}

type keyed struct {
	inner model.ToolCallingChatModel
	extra map[string]any
}

func (m *keyed) options(ctx context.Context, opts []model.Option) []model.Option {
	key, ok := KeyOf(ctx)
	if !ok {
		return opts
	}
	fields := make(map[string]any, len(m.extra)+1)
	maps.Copy(fields, m.extra)
	fields[Field] = key
	// First, so that a caller's own WithExtraFields still wins.
	return append([]model.Option{openai.WithExtraFields(fields)}, opts...)
}

// Generate calls the inner model with the conversation's key.
func (m *keyed) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.inner.Generate(ctx, in, m.options(ctx, opts)...)
}

// Stream calls the inner model with the conversation's key.
func (m *keyed) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(ctx, in, m.options(ctx, opts)...)
}

// WithTools binds tools on the inner model and wraps the result.
func (m *keyed) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &keyed{inner: inner, extra: m.extra}, nil
}

// IsCallbacksEnabled reports what the inner model does, so Eino neither
// wraps a model that reports its own callbacks nor leaves one without.
func (m *keyed) IsCallbacksEnabled() bool {
	c, ok := m.inner.(components.Checker)
	return ok && c.IsCallbacksEnabled()
}

// GetType is the inner model's component type.
func (m *keyed) GetType() string {
	t, _ := components.GetType(m.inner)
	return t
}
