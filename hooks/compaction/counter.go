package compaction

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	// Imported under another name: the package's tests declare a helper count.
	tokencount "github.com/einocompact/einocompact/hooks/compaction/internal/count"
)

// TokenCounter measures a conversation (and the tool schemas sent with it) in
// tokens. Implementations must be safe for concurrent use and must not mutate
// their arguments. Count of no messages and no tools is 0.
type TokenCounter interface {
	Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)
}

// TokenCounterFunc adapts an ordinary function to TokenCounter.
type TokenCounterFunc func(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)

// Count calls f.
func (f TokenCounterFunc) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	return f(ctx, messages, tools)
}

// Cost is one message's share of a conversation's size, on an
// AdditiveCounter's own scale. Costs add up; AdditiveCounter.Tokens turns a
// sum into tokens. Units is the length of the message in code points (its
// rendering plus the reasoning its client sends, ReasoningSent), Flat the
// flat token charge for its attachments; Add and Sub add and subtract two
// costs.
type Cost = tokencount.Cost

// AdditiveCounter is a TokenCounter whose count of any list of messages can be
// computed exactly from per-message costs. Planners use it to count every
// candidate remainder in O(1) after one O(n) pass, instead of recounting the
// conversation for every candidate. For all messages ms,
//
//	Tokens(sum of MessageCost(m) for m in ms, len(ms)) == Count(ctx, ms, nil)
type AdditiveCounter interface {
	TokenCounter
	// MessageCost measures one message.
	MessageCost(msg *schema.Message) Cost
	// Tokens converts the summed cost of n messages into tokens.
	Tokens(sum Cost, n int) int
}

// NoCharge, as ApproximateConfig.TokensPerImage or TokensPerFile (and the
// same fields of the tiktoken counter's config), charges nothing for that
// kind of attachment. It exists because a zero there means "the default":
// a model that is never sent the attachments, or whose provider does not
// bill them, needs a way to say zero. The fx configuration spells zero 0,
// since its defaults are filled in before a file is read, and accepts -1 too.
const NoCharge = -1

// The bounds of the counter settings. Outside them a count stops meaning
// anything: a CharsPerToken of 1e-300 makes every text worth more tokens
// than an int holds, one of 1e300 makes every text worth none, and either
// way compaction never triggers. Inside them every count of a conversation
// a process can hold fits an int.
const (
	// MinCharsPerToken is the smallest ApproximateConfig.CharsPerToken: ten
	// tokens per code point, well below any tokenizer's worst case.
	MinCharsPerToken = 0.1
	// MaxCharsPerToken is the largest ApproximateConfig.CharsPerToken, far
	// above any tokenizer's average (about 4 for English).
	MaxCharsPerToken = 100.0
	// MaxAttachmentCharge is the largest flat charge per attachment
	// (TokensPerImage, TokensPerFile, here and in the tiktoken counter):
	// ten million tokens, above any model's context window.
	MaxAttachmentCharge = 10_000_000
)

// ApproximateConfig configures an ApproximateTokenCounter. Zero values take
// the defaults.
type ApproximateConfig struct {
	// CharsPerToken is how many code points make one token. Default 4.0,
	// a fair average for English and code; when set it must lie in
	// [MinCharsPerToken, MaxCharsPerToken].
	CharsPerToken float64
	// TokensPerImage is charged per image. Default 85 (a low-detail image on
	// OpenAI models); NoCharge charges nothing; no other negative value and
	// nothing above MaxAttachmentCharge is accepted.
	TokensPerImage int
	// TokensPerFile is charged per file, audio or video part. Default 1000;
	// NoCharge charges nothing; no other negative value and nothing above
	// MaxAttachmentCharge is accepted.
	TokensPerFile int
	// CacheEntries bounds how many messages the counter remembers the cost
	// of (see below). Default 65,536; must not be negative.
	CacheEntries int
	// DisableCache makes the counter measure every message on every count.
	// By default it remembers each message's cost by the message's identity
	// (weakly: the cache keeps no message alive), so that recounting a
	// conversation costs a check per message already seen. That relies on
	// messages not being edited once counted (Eino's contract): only a new
	// value set in Role or Content is noticed; any other edit keeps the old
	// cost. A caller that edits messages after counting them needs
	// DisableCache.
	DisableCache bool
}

// ApproximateTokenCounter estimates tokens as the code points of the
// conversation's rendering (see Render) and of the reasoning sent with it
// (see ReasoningSent) divided by CharsPerToken, truncated,
// plus a flat charge per attachment, including attachments inside tool
// results. Tool schemas are counted through RenderTools. It needs no
// tokenizer, is safe for concurrent use, and is an AdditiveCounter. The zero
// value (and a nil pointer) counts with the default settings.
type ApproximateTokenCounter struct {
	a *tokencount.Approx // nil in the zero value: the defaults
}

var _ AdditiveCounter = (*ApproximateTokenCounter)(nil)

// NewApproximateTokenCounter returns a counter with cfg's settings; a nil cfg
// means all defaults.
func NewApproximateTokenCounter(cfg *ApproximateConfig) (*ApproximateTokenCounter, error) {
	if cfg == nil {
		return &ApproximateTokenCounter{a: tokencount.NewApprox(tokencount.Settings{})}, nil
	}
	switch {
	case cfg.CharsPerToken != 0 && !(cfg.CharsPerToken >= MinCharsPerToken && cfg.CharsPerToken <= MaxCharsPerToken):
		return nil, fmt.Errorf("compaction: ApproximateConfig.CharsPerToken must be 0 (the default, 4) or in [%v, %v], got %v",
			MinCharsPerToken, MaxCharsPerToken, cfg.CharsPerToken)
	case cfg.TokensPerImage < 0 && cfg.TokensPerImage != NoCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerImage must be at least 0 (or NoCharge), got %d", cfg.TokensPerImage)
	case cfg.TokensPerImage > MaxAttachmentCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerImage must be at most %d (MaxAttachmentCharge), got %d", MaxAttachmentCharge, cfg.TokensPerImage)
	case cfg.TokensPerFile < 0 && cfg.TokensPerFile != NoCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerFile must be at least 0 (or NoCharge), got %d", cfg.TokensPerFile)
	case cfg.TokensPerFile > MaxAttachmentCharge:
		return nil, fmt.Errorf("compaction: ApproximateConfig.TokensPerFile must be at most %d (MaxAttachmentCharge), got %d", MaxAttachmentCharge, cfg.TokensPerFile)
	case cfg.CacheEntries < 0:
		return nil, fmt.Errorf("compaction: ApproximateConfig.CacheEntries must be at least 0, got %d", cfg.CacheEntries)
	}
	return &ApproximateTokenCounter{a: tokencount.NewApprox(tokencount.Settings(*cfg))}, nil
}

// DefaultCounter returns an ApproximateTokenCounter with the default settings.
func DefaultCounter() *ApproximateTokenCounter {
	c, _ := NewApproximateTokenCounter(nil)
	return c
}

// approx is the counter inside c: nil (the defaults) for a nil or zero c.
func (c *ApproximateTokenCounter) approx() *tokencount.Approx {
	if c == nil {
		return nil
	}
	return c.a
}

// Count implements TokenCounter. It never fails; ctx is not consulted because
// counting is pure computation.
func (c *ApproximateTokenCounter) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	return c.approx().Count(ctx, messages, tools)
}

// MessageCost implements AdditiveCounter.
func (c *ApproximateTokenCounter) MessageCost(msg *schema.Message) Cost {
	return c.approx().MessageCost(msg)
}

// messageCosts is MessageCost of each message, read from the cache where
// the conversation was counted before (the planner asks for it).
func (c *ApproximateTokenCounter) messageCosts(messages []*schema.Message) []Cost {
	return c.approx().Costs(messages)
}

// Tokens implements AdditiveCounter: the separators between n messages are
// added here, which is why costs are additive.
func (c *ApproximateTokenCounter) Tokens(sum Cost, n int) int { return c.approx().Tokens(sum, n) }
