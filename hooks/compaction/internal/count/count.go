// Package count measures messages in tokens: per-message costs from the
// rendering, tool schema sizes, a cache of cost sums.
//
// Its counter, Approx, is the one behind compaction.ApproximateTokenCounter:
// the code points of a conversation's rendering (internal/render) and of the
// reasoning sent with it, divided by a ratio, plus a flat charge per
// attachment. A message's Cost adds up over a conversation, so a planner
// counts every candidate remainder from one pass. tools.go remembers how long
// each tool schema renders, cache.go the costs of the conversations counted
// before. It uses internal/render, internal/digest and internal/message; the
// public package validates the settings and keeps the types its callers hold.
package count

import (
	"context"
	"math"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// Counter measures a conversation and its tool schemas in tokens: the method
// set of compaction.TokenCounter, so values pass both ways unwrapped.
type Counter interface {
	Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error)
}

// Cost is one message's share of a conversation's size, on an Additive
// counter's own scale (compaction.Cost is this type). Costs add up;
// Additive.Tokens turns a sum into tokens.
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

// Additive is a Counter whose count of any list of messages is computed
// exactly from per-message costs (the method set of
// compaction.AdditiveCounter). For all messages ms,
//
//	Tokens(sum of MessageCost(m) for m in ms, len(ms)) == Count(ctx, ms, nil)
type Additive interface {
	Counter
	// MessageCost measures one message.
	MessageCost(msg *schema.Message) Cost
	// Tokens converts the summed cost of n messages into tokens.
	Tokens(sum Cost, n int) int
}

// Settings configure an Approx, as compaction.ApproximateConfig (the same
// fields, so one converts to the other) after its validation. Zero values
// take the defaults.
type Settings struct {
	// CharsPerToken is how many code points make one token. Default 4.
	CharsPerToken float64
	// TokensPerImage is charged per image. Default 85; -1
	// (compaction.NoCharge) charges nothing.
	TokensPerImage int
	// TokensPerFile is charged per file, audio or video part. Default 1000;
	// -1 charges nothing.
	TokensPerFile int
	// CacheEntries bounds the cache of message costs. Default 65,536.
	CacheEntries int
	// DisableCache measures every message on every count.
	DisableCache bool
}

// noCharge is compaction.NoCharge: a charge of none, since zero means the
// default.
const noCharge = -1

// Approx estimates tokens as the code points of the conversation's
// rendering and of the reasoning sent with it divided by CharsPerToken,
// truncated, plus a flat charge per attachment, including attachments
// inside tool results; tool schemas are counted through render.Tools. It is
// safe for concurrent use. The zero value (and a nil pointer) counts with the
// default settings.
type Approx struct {
	charsPerToken  float64
	tokensPerImage int
	tokensPerFile  int
	tools          *toolSizes
	costs          *costCache // nil when disabled
}

var _ Additive = (*Approx)(nil)

// NewApprox returns a counter with s's settings, which the caller has
// validated (compaction.NewApproximateTokenCounter does).
func NewApprox(s Settings) *Approx {
	a := &Approx{charsPerToken: 4.0, tokensPerImage: 85, tokensPerFile: 1000, tools: &toolSizes{},
		costs: newCostCache(defaultCacheEntries)}
	switch {
	case s.DisableCache:
		a.costs = nil
	case s.CacheEntries > 0:
		a.costs = newCostCache(s.CacheEntries)
	}
	if s.CharsPerToken > 0 {
		a.charsPerToken = s.CharsPerToken
	}
	a.tokensPerImage = attachmentCharge(s.TokensPerImage, a.tokensPerImage)
	a.tokensPerFile = attachmentCharge(s.TokensPerFile, a.tokensPerFile)
	return a
}

// attachmentCharge resolves a configured per-attachment charge: 0 means def,
// noCharge means 0, anything else is the charge itself (validated already).
func attachmentCharge(configured, def int) int {
	switch {
	case configured == noCharge:
		return 0
	case configured == 0:
		return def
	}
	return configured
}

// sharedDefault serves zero-value counters, so that Approx{} counts with the
// defaults instead of dividing by zero.
var sharedDefault = NewApprox(Settings{})

func (a *Approx) settings() *Approx {
	if a == nil || a.charsPerToken == 0 || a.tools == nil {
		return sharedDefault
	}
	return a
}

// CharsPerToken is the ratio a counts with: the default's for a nil or zero
// Approx.
func (a *Approx) CharsPerToken() float64 { return a.settings().charsPerToken }

// Count implements Counter. It never fails; ctx is not consulted because
// counting is pure computation.
func (a *Approx) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	a = a.settings()
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	// One tally serves every message: handing each its own would cost an
	// allocation per message, since the tally escapes through the writer.
	var sum Cost
	t := new(render.Tally)
	if a.costs != nil {
		sum = a.costs.sum(messages, func(m *schema.Message) Cost { return a.cost(t, m) })
	} else {
		for _, m := range messages {
			sum = sum.Add(a.cost(t, m))
		}
	}
	units := sum.Units + max(len(messages)-1, 0)
	if len(tools) > 0 {
		units += a.tools.units(tools)
	}
	return tokensOf(units, a.charsPerToken, sum.Flat), nil
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

// MessageCost implements Additive.
func (a *Approx) MessageCost(msg *schema.Message) Cost {
	a = a.settings()
	return a.cost(new(render.Tally), msg)
}

// Costs is MessageCost of each message, read from the cache where the
// conversation was counted before (Compact counts it before planning, and
// the planner wants every message's cost).
func (a *Approx) Costs(messages []*schema.Message) []Cost {
	a = a.settings()
	out := make([]Cost, len(messages))
	t := new(render.Tally)
	measure := func(m *schema.Message) Cost { return a.cost(t, m) }
	if a.costs != nil {
		a.costs.sumEach(messages, measure, out)
		return out
	}
	for i, m := range messages {
		out[i] = measure(m)
	}
	return out
}

// cost measures msg with t, which it resets first.
func (a *Approx) cost(t *render.Tally, msg *schema.Message) Cost {
	t.N = 0
	render.Message(t, msg, render.Options{})
	cost := Cost{Units: t.N}
	if msg == nil {
		return cost
	}
	cost.Units += render.RuneLen(message.ReasoningSent(msg))
	for p := range render.Parts(msg) {
		if p.IsText {
			continue
		}
		if p.Attachment.Kind == "image" {
			cost.Flat += a.tokensPerImage
		} else {
			cost.Flat += a.tokensPerFile
		}
	}
	return cost
}

// Tokens implements Additive: the separators between n messages are added
// here, which is why costs are additive.
func (a *Approx) Tokens(sum Cost, n int) int {
	a = a.settings()
	if n <= 0 {
		return 0
	}
	return tokensOf(sum.Units+n-1, a.charsPerToken, sum.Flat)
}
