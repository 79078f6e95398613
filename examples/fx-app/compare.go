package main

import (
	"context"
	"fmt"
	"io"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

// comparison is what a user could have chosen instead of this run's
// compaction, on the same model replies and tool results: Eino's
// summarization middleware, and no compaction. Every bill is bench.BillOf's,
// the bill docs/benchmarks.md describes (every request priced through the
// provider's cache model, tokens by the default counter per block).
type comparison struct {
	window int
	// this is the run as it went: every request it sent, as sent.
	this *bench.SimResult
	// eino and none replay the run's script through bench.Simulate.
	eino, none *bench.SimResult
}

// billPrices are the cache models the demo prices under.
var billPrices = []bench.Prices{bench.PricesOpenAI, bench.PricesNoCache}

// compare builds the comparison of the run the reporter saw, with the
// window and trigger fraction the hook had. Eino's middleware is given
// the offline extractive summarizer (einoExtractive), the one the demo's
// hook uses offline.
func (r *reporter) compare(ctx context.Context, window int, compactAt float64) (*comparison, error) {
	r.mu.Lock()
	this := &bench.SimResult{Strategy: "this run", Requests: append([]bench.Request(nil), r.requests...)}
	for _, c := range r.compactions {
		// After: the coming call as the hook estimated it, which is what
		// the trigger is compared with.
		this.Compactions = append(this.Compactions, bench.Compaction{Step: c.beforeStep - 1, After: c.tokAfter + c.overhead})
	}
	script, err := bench.ScriptOf(r.shadow, r.tools)
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, q := range this.Requests {
		if q.Summarizer {
			continue
		}
		n, err := compaction.DefaultCounter().Count(ctx, q.Messages, q.Tools)
		if err != nil {
			return nil, err
		}
		this.Steps = append(this.Steps, bench.StepRecord{Step: q.Step, Prompt: n})
	}
	ext, err := extractive.New(nil)
	if err != nil {
		return nil, err
	}
	sims, err := bench.Simulate(ctx, bench.SimConfig{Script: script, Window: window, CompactAt: compactAt,
		Strategies: []string{bench.StrategyEino, bench.StrategyNone}, Summarizer: einoExtractive{ext}})
	if err != nil {
		return nil, err
	}
	return &comparison{window: window, this: this, eino: sims[0], none: sims[1]}, nil
}

// overflow returns the first call (1-based) of res whose prompt exceeds
// the window and its size; 0 when every call fits.
func (c *comparison) overflow(res *bench.SimResult) (call, tokens int) {
	for _, s := range res.Steps {
		if s.Prompt > c.window {
			return s.Step + 1, s.Prompt
		}
	}
	return 0, 0
}

// write prints the comparison's rows with row, the summary table's.
func (c *comparison) write(w io.Writer, row func(k, format string, args ...any)) {
	failNone, noneTokens := c.overflow(c.none)
	failEino, einoTokens := c.overflow(c.eino)
	row("compared with", "the same %d replies and tool results, replayed in-process (bench.Simulate): Eino's summarization middleware "+
		"(adk/middlewares/summarization, triggered at the same %d tokens, summaries by the offline extractive summarizer) compacted %d times; "+
		"bills as docs/benchmarks.md prices them (every request through the provider's cache model, default counter per block)",
		len(c.none.Steps), int(float64(c.window)*c.none.Config.CompactAt), len(c.eino.Compactions))
	if failNone > 0 {
		row("no compaction", "not an option here: call %d of %d would have failed with a context-length error (~%d tokens against the %d-token window)",
			failNone, len(c.none.Steps), noneTokens, c.window)
	} else {
		row("no compaction", "fits the window (peak ~%d of %d tokens)", peakOf(c.none), c.window)
	}
	if failEino > 0 {
		row("Eino's middleware", "call %d would have failed with a context-length error (~%d tokens against the %d-token window)", failEino, einoTokens, c.window)
	}
	c.writeRoom(row)
	for _, p := range billPrices {
		cfg := bench.BillConfig{Prices: p}
		this, eino := bench.BillOf(c.this, cfg), bench.BillOf(c.eino, cfg)
		none := ""
		if failNone == 0 {
			n := bench.BillOf(c.none, cfg)
			none = fmt.Sprintf("; no compaction ~%.0f (this run %.2fx)", n.Cost, this.Cost/n.Cost)
		}
		row("bill, "+p.Name, "this run ~%.0f = agent calls ~%.0f + summarizer ~%.0f; Eino's middleware ~%.0f = ~%.0f + ~%.0f (this run %.2fx)%s",
			this.Cost, this.Main.Cost(p), this.Summarizer.Cost(p), eino.Cost, eino.Main.Cost(p), eino.Summarizer.Cost(p), this.Cost/eino.Cost, none)
	}
	fmt.Fprintf(w, "  %-20s %s\n", "", "bills in uncached input tokens of the agent's model: cached input at 0.1 OpenAI-like, output at 8")
}

func peakOf(res *bench.SimResult) int {
	peak := 0
	for _, s := range res.Steps {
		peak = max(peak, s.Prompt)
	}
	return peak
}

// einoExtractive is the offline extractive summarizer for Eino's
// middleware, which sends the conversation itself between its own
// instructions (a system message first, a user message last) where the
// extractive summarizer reads the transcript a SummarizationCompactor
// sends: it summarizes the transcript of the messages between them.
type einoExtractive struct{ ext *extractive.Summarizer }

func (e einoExtractive) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	msgs := input
	if len(msgs) >= 2 {
		msgs = msgs[1 : len(msgs)-1]
	}
	all := make([]int, len(msgs))
	for i := range all {
		all[i] = i
	}
	text, err := e.ext.Summarize(ctx, "<conversation_to_summarize>\n"+compaction.Transcript(msgs, all)+"\n</conversation_to_summarize>")
	if err != nil {
		return nil, err
	}
	return schema.AssistantMessage(text, nil), nil
}

func (e einoExtractive) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := e.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

// writeRoom prints how often each run compacted and how much room below
// the trigger its compactions bought, in steps of the run's median growth
// had nothing been compacted (bench.RoomOf).
func (c *comparison) writeRoom(row func(k, format string, args ...any)) {
	trigger := int(float64(c.window) * c.none.Config.CompactAt)
	growth := bench.StepGrowth(c.none)
	this, eino := bench.RoomOf(c.this, trigger, growth), bench.RoomOf(c.eino, trigger, growth)
	row("room bought", "this run %.0f compactions per 100 calls, median %.1f steps below the trigger (least %.1f); Eino's middleware %.0f per 100 calls, median %.1f (least %.1f); a step: ~%.0f tokens, the median growth without compaction",
		this.PerHundredCalls, this.MedianSteps, this.MinSteps, eino.PerHundredCalls, eino.MedianSteps, eino.MinSteps, growth)
}
