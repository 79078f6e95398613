package compaction

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
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
// sum into tokens.
type Cost struct {
	// Units is the length of the message in code points: its rendering
	// plus the reasoning its client sends (ReasoningSent).
	Units int
	// Flat is the flat token charge for the message's attachments.
	Flat int
}

// Add returns the sum of two costs.
func (c Cost) Add(o Cost) Cost { return Cost{Units: c.Units + o.Units, Flat: c.Flat + o.Flat} }

// Sub returns c minus o.
func (c Cost) Sub(o Cost) Cost { return Cost{Units: c.Units - o.Units, Flat: c.Flat - o.Flat} }

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
	charsPerToken  float64
	tokensPerImage int
	tokensPerFile  int
	tools          *toolSizes
	costs          *costCache // nil when disabled
}

var _ AdditiveCounter = (*ApproximateTokenCounter)(nil)

// NewApproximateTokenCounter returns a counter with cfg's settings; a nil cfg
// means all defaults.
func NewApproximateTokenCounter(cfg *ApproximateConfig) (*ApproximateTokenCounter, error) {
	c := &ApproximateTokenCounter{charsPerToken: 4.0, tokensPerImage: 85, tokensPerFile: 1000, tools: &toolSizes{},
		costs: newCostCache(defaultCacheEntries)}
	if cfg == nil {
		return c, nil
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
	switch {
	case cfg.DisableCache:
		c.costs = nil
	case cfg.CacheEntries > 0:
		c.costs = newCostCache(cfg.CacheEntries)
	}
	if cfg.CharsPerToken > 0 {
		c.charsPerToken = cfg.CharsPerToken
	}
	c.tokensPerImage = attachmentCharge(cfg.TokensPerImage, c.tokensPerImage)
	c.tokensPerFile = attachmentCharge(cfg.TokensPerFile, c.tokensPerFile)
	return c, nil
}

// attachmentCharge resolves a configured per-attachment charge: 0 means def,
// NoCharge means 0, anything else is the charge itself (validated already).
func attachmentCharge(configured, def int) int {
	switch {
	case configured == NoCharge:
		return 0
	case configured == 0:
		return def
	}
	return configured
}

// DefaultCounter returns an ApproximateTokenCounter with the default settings.
func DefaultCounter() *ApproximateTokenCounter {
	c, _ := NewApproximateTokenCounter(nil)
	return c
}

// sharedDefault serves zero-value counters, so that ApproximateTokenCounter{}
// counts with the defaults instead of dividing by zero.
var sharedDefault = DefaultCounter()

func (c *ApproximateTokenCounter) settings() *ApproximateTokenCounter {
	if c == nil || c.charsPerToken == 0 || c.tools == nil {
		return sharedDefault
	}
	return c
}

// Count implements TokenCounter. It never fails; ctx is not consulted because
// counting is pure computation.
func (c *ApproximateTokenCounter) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	c = c.settings()
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	// One tally serves every message: handing each its own would cost an
	// allocation per message, since the tally escapes through the writer.
	var sum Cost
	t := new(render.Tally)
	if c.costs != nil {
		sum = c.costs.sum(messages, func(m *schema.Message) Cost { return c.cost(t, m) })
	} else {
		for _, m := range messages {
			sum = sum.Add(c.cost(t, m))
		}
	}
	units := sum.Units + max(len(messages)-1, 0)
	if len(tools) > 0 {
		units += c.tools.units(tools)
	}
	return tokensOf(units, c.charsPerToken, sum.Flat), nil
}

// tokensOf is units/charsPerToken, truncated, plus flat, saturated at
// math.MaxInt: a count that overflowed would come out negative, and a
// negative conversation never reaches any trigger.
func tokensOf(units int, charsPerToken float64, flat int) int {
	f := float64(units) / charsPerToken
	if !(f < math.MaxInt) { // also NaN; float64(math.MaxInt) is 2^63
		return math.MaxInt
	}
	n := int(f)
	if flat > math.MaxInt-n {
		return math.MaxInt
	}
	return n + flat
}

// MessageCost implements AdditiveCounter.
func (c *ApproximateTokenCounter) MessageCost(msg *schema.Message) Cost {
	c = c.settings()
	return c.cost(new(render.Tally), msg)
}

// messageCosts is MessageCost of each message, read from the cache where
// the conversation was counted before (Compact counts it before planning,
// and the planner wants every message's cost).
func (c *ApproximateTokenCounter) messageCosts(messages []*schema.Message) []Cost {
	c = c.settings()
	out := make([]Cost, len(messages))
	t := new(render.Tally)
	measure := func(m *schema.Message) Cost { return c.cost(t, m) }
	if c.costs != nil {
		c.costs.sumEach(messages, measure, out)
		return out
	}
	for i, m := range messages {
		out[i] = measure(m)
	}
	return out
}

// cost measures msg with t, which it resets first.
func (c *ApproximateTokenCounter) cost(t *render.Tally, msg *schema.Message) Cost {
	t.N = 0
	render.Message(t, msg, render.Options{})
	cost := Cost{Units: t.N}
	if msg == nil {
		return cost
	}
	cost.Units += render.RuneLen(ReasoningSent(msg))
	for p := range render.Parts(msg) {
		if p.IsText {
			continue
		}
		if p.Attachment.Kind == AttachmentImage {
			cost.Flat += c.tokensPerImage
		} else {
			cost.Flat += c.tokensPerFile
		}
	}
	return cost
}

// Tokens implements AdditiveCounter: the separators between n messages are
// added here, which is why costs are additive.
func (c *ApproximateTokenCounter) Tokens(sum Cost, n int) int {
	c = c.settings()
	if n <= 0 {
		return 0
	}
	return tokensOf(sum.Units+n-1, c.charsPerToken, sum.Flat)
}

// toolSizes remembers how long each tool schema renders, because rendering
// one (JSON Schema, generic JSON, sorted keys) costs tens of microseconds and
// the same schemas come with every model call; without provider usage that
// was most of the cost of a call with a short conversation. An entry is keyed
// by everything RenderTools reads: Name, Desc and the ParamsOneOf pointer,
// which the key also keeps alive, so its address cannot be reused by another
// schema. A ParamsOneOf edited in place keeps its old size; schemas are
// built, not edited, in Eino. The memo is shared by every run the counter
// serves and holds no per-run state; it is emptied when it grows past
// maxToolSizes, so tools built per request cannot make it grow without bound.
type toolSizes struct {
	m sync.Map // toolKey -> int: code points of the tool's object in RenderTools
	n atomic.Int64
}

type toolKey struct {
	name, desc string
	params     *schema.ParamsOneOf
}

const maxToolSizes = 1024

// units is render.RuneLen(RenderTools(tools)): "[" + the objects of the non-nil
// tools joined by ", " + "]", so it adds up from one size per tool.
func (s *toolSizes) units(tools []*schema.ToolInfo) int {
	if s == nil {
		return render.RuneLen(RenderTools(tools))
	}
	total, k := 2, 0
	for _, t := range tools {
		if t == nil {
			continue
		}
		if k > 0 {
			total += 2
		}
		k++
		total += s.of(t)
	}
	return total
}

func (s *toolSizes) of(t *schema.ToolInfo) int {
	key := toolKey{name: t.Name, desc: t.Desc, params: t.ParamsOneOf}
	if v, ok := s.m.Load(key); ok {
		return v.(int)
	}
	n := render.RuneLen(RenderTools([]*schema.ToolInfo{t})) - 2
	if s.n.Add(1) > maxToolSizes {
		s.m.Clear()
		s.n.Store(1)
	}
	s.m.Store(key, n)
	return n
}
