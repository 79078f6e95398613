package bench

import (
	"context"
	"hash/fnv"
	"io"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// Prices are what a provider charges, as multiples of one uncached input
// token, with the cache model its prices go with.
type Prices struct {
	Name string
	// CachedInput is a token read from the cache; CacheWrite a token
	// written to it (1 where writing costs nothing extra); Output a token
	// the model writes.
	CachedInput, CacheWrite, Output float64
	// NewCache returns the provider's cache model, empty.
	NewCache func() CacheModel
}

// The price presets of the bill. Their sources are in docs/benchmarks.md:
// the multipliers are those of issue 23 and of the landscape survey's
// table of provider mechanics.
var (
	// PricesNoCache: no prompt caching; output at the OpenAI-like 8x.
	PricesNoCache = Prices{Name: "no caching", CachedInput: 1, CacheWrite: 1, Output: 8,
		NewCache: func() CacheModel { return NoCache{} }}
	// PricesOpenAI: automatic prefix caching, cached input 0.1, free writes,
	// output 8.
	PricesOpenAI = Prices{Name: "OpenAI-like", CachedInput: 0.1, CacheWrite: 1, Output: 8,
		NewCache: func() CacheModel { return NewPrefixCache() }}
	// PricesAnthropic: a breakpoint on the last block, read 0.1, write 1.25,
	// output 5.
	PricesAnthropic = Prices{Name: "Anthropic-like", CachedInput: 0.1, CacheWrite: 1.25, Output: 5,
		NewCache: func() CacheModel { return NewAnthropicCache() }}
	// PricesExplicit: explicit breakpoints (after the system prompt and on
	// the last block, no lookback limit), read 0.1, write 1.25, output 8.
	PricesExplicit = Prices{Name: "explicit breakpoints", CachedInput: 0.1, CacheWrite: 1.25, Output: 8,
		NewCache: func() CacheModel { return NewExplicitCache() }}
)

// SeparateSummarizerPrice is the price of the separate summarizer model the
// bill also considers, as a multiple of the agent's model's prices.
const SeparateSummarizerPrice = 0.2

// Usage is what one model was sent and wrote over a run, in tokens.
type Usage struct {
	Requests int
	Input    int // every input token; Read and Written are part of it
	Read     int // read from the cache
	Written  int // written to the cache at the write price
	Output   int
}

func (u *Usage) add(c CacheUse, input, output int) {
	u.Requests++
	u.Input += input
	u.Read += c.Read
	u.Written += c.Written
	u.Output += output
}

// Cost is u priced at p, in uncached input tokens.
func (u Usage) Cost(p Prices) float64 {
	plain := u.Input - u.Read - u.Written
	return float64(plain) + p.CachedInput*float64(u.Read) + p.CacheWrite*float64(u.Written) + p.Output*float64(u.Output)
}

// BillConfig says how to bill a run.
type BillConfig struct {
	Prices Prices
	// SummarizerPrice 0 bills the summarizer as the agent's model, sharing
	// its cache; above 0, as a separate model with its own cache, at this
	// multiple of Prices.
	SummarizerPrice float64
	// Rule and Recalls, when Rule is set, charge the calls the agent makes
	// to get back what the conversation as sent no longer holds.
	Rule    *ForgetRule
	Recalls []Recall
	// CacheTTL, above 0, is how long the cache keeps a prefix after its
	// last use: a request sent longer after (Request.At) reads nothing of
	// it. 0: the cache never expires.
	CacheTTL time.Duration
	// RecallSearch, for a run with SimConfig.Archive, has each recall call
	// pass a search that returns only the messages the agent needs (the
	// least a recall can return) instead of the whole archived entry.
	RecallSearch bool
}

// Bill is what a run cost.
type Bill struct {
	Main       Usage // the agent's own calls
	Recovery   Usage // the extra calls of the forgetting model
	Summarizer Usage
	// Cost is the whole bill in uncached input tokens of the agent's model.
	Cost float64
	// Resent holds, per compaction, the tokens of the first main-model
	// request after it that the request before it had sent too but that
	// were not read from the cache: what the compaction made the agent pay
	// for again.
	Resent []int
	// Forgotten counts the recalls whose fact was not held; ExtraCalls the
	// calls they cost.
	Forgotten, ExtraCalls int
	// Recalled counts the forgotten facts brought back by the recall tool
	// (SimConfig.Archive), RecallCalls the calls to it (part of
	// ExtraCalls) and RecallTokens the tokens of what they returned.
	Recalled, RecallCalls, RecallTokens int
}

// BillOf prices every request of res, in the order they were sent, through
// cfg's cache model. Token counts are the default counter's, per block.
func BillOf(res *SimResult, cfg BillConfig) Bill {
	if res.blocks == nil {
		res.blocks = newBlocker()
	}
	bl := res.blocks
	mainCache := cfg.Prices.NewCache()
	sumCache := mainCache
	if cfg.SummarizerPrice > 0 {
		sumCache = cfg.Prices.NewCache()
	}
	clocks := []expiring{}
	for _, c := range []CacheModel{mainCache, sumCache} {
		if e, ok := c.(expiring); ok {
			e.setTTL(cfg.CacheTTL)
			clocks = append(clocks, e)
		}
	}
	compacted := map[int]bool{}
	for _, c := range res.Compactions {
		compacted[c.Step] = true
	}
	recalls := map[int][]Recall{}
	if cfg.Rule != nil {
		for _, rc := range cfg.Recalls {
			recalls[rc.Step] = append(recalls[rc.Step], rc)
		}
	}
	recall := recallerFor(res, cfg)
	var b Bill
	var previous map[uint64]bool // block keys of the last main-model request
	for _, req := range res.Requests {
		blocks, lead := bl.blocks(req)
		for _, e := range clocks {
			e.at(req.At)
		}
		input := 0
		for _, x := range blocks {
			input += x.Tokens
		}
		if req.Summarizer {
			b.Summarizer.add(sumCache.Serve(blocks, lead), input, req.Output)
			continue
		}
		use := mainCache.Serve(blocks, lead)
		b.Main.add(use, input, req.Output)
		if compacted[req.Step] && previous != nil {
			resent := 0
			for _, x := range blocks[use.Matched:] {
				if previous[x.Key] {
					resent += x.Tokens
				}
			}
			b.Resent = append(b.Resent, resent)
		}
		previous = make(map[uint64]bool, len(blocks))
		for _, x := range blocks {
			previous[x.Key] = true
		}
		for _, rc := range recalls[req.Step] {
			rec := cfg.Rule.recover(rc, req.Messages, req.Tools, bl.output)
			if rec.Calls > 0 {
				rec = recall.instead(rec, req, bl.output)
			}
			b.count(rec)
			for _, extra := range rec.Extra {
				xb, xl := bl.blocks(extra)
				n := 0
				for _, x := range xb {
					n += x.Tokens
				}
				b.Recovery.add(mainCache.Serve(xb, xl), n, extra.Output)
			}
		}
	}
	scale := 1.0
	if cfg.SummarizerPrice > 0 {
		scale = cfg.SummarizerPrice
	}
	b.Cost = b.Main.Cost(cfg.Prices) + b.Recovery.Cost(cfg.Prices) + scale*b.Summarizer.Cost(cfg.Prices)
	return b
}

// ReleaseRequests drops the recorded requests and what BillOf remembered of
// them: a run's requests hold every message it sent, so a caller that has
// made every bill it needs frees them this way. BillOf then bills nothing.
func (res *SimResult) ReleaseRequests() {
	res.Requests, res.blocks, res.archive = nil, nil, nil
}

// blocker turns requests into cache blocks, remembering each message's
// and each set of tool schemas'.
type blocker struct {
	counter *compaction.ApproximateTokenCounter
	msgs    map[*schema.Message]Block
	tools   map[toolsKey]Block
}

// toolsKey is a slice of tool schemas by identity: the simulation sends
// the same slice with every request.
type toolsKey struct {
	first *schema.ToolInfo
	n     int
}

func newBlocker() *blocker {
	return &blocker{counter: compaction.DefaultCounter(), msgs: map[*schema.Message]Block{}, tools: map[toolsKey]Block{}}
}

// blocks returns req as cache blocks (the tool schemas, if any, then one
// per message) and how many lead it as tools and system messages.
func (bl *blocker) blocks(req Request) ([]Block, int) {
	out := make([]Block, 0, len(req.Messages)+1)
	if len(req.Tools) > 0 {
		k := toolsKey{req.Tools[0], len(req.Tools)}
		b, ok := bl.tools[k]
		if !ok {
			h := fnv.New64a()
			io.WriteString(h, "tools\x00"+compaction.RenderTools(req.Tools))
			n, _ := bl.counter.Count(context.Background(), nil, req.Tools)
			b = Block{Key: h.Sum64(), Tokens: n}
			bl.tools[k] = b
		}
		out = append(out, b)
	}
	lead := len(out)
	leading := true
	for _, m := range req.Messages {
		b, ok := bl.msgs[m]
		if !ok {
			b = Block{Key: messageKey(m), Tokens: bl.output(m)}
			bl.msgs[m] = b
		}
		out = append(out, b)
		if leading && m.Role == schema.System {
			lead++
		} else {
			leading = false
		}
	}
	return out, lead
}

// output is the tokens of one message.
func (bl *blocker) output(m *schema.Message) int {
	return bl.counter.Tokens(bl.counter.MessageCost(m), 1)
}

// messageKey identifies a message by what a provider receives of it: role,
// name, text, tool calls and the tool call it answers. Two messages with
// equal keys are the same block to a cache.
func messageKey(m *schema.Message) uint64 {
	h := fnv.New64a()
	field := func(s string) {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	field(string(m.Role))
	field(m.Name)
	field(m.Content)
	field(m.ReasoningContent)
	field(m.ToolCallID)
	field(m.ToolName)
	for _, c := range m.ToolCalls {
		field(c.ID)
		field(c.Type)
		field(c.Function.Name)
		field(c.Function.Arguments)
	}
	for _, p := range m.UserInputMultiContent {
		field(string(p.Type))
		field(p.Text)
	}
	for _, p := range m.AssistantGenMultiContent {
		field(string(p.Type))
		field(p.Text)
	}
	return h.Sum64()
}
