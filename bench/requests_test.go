package bench

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// The bill rests on the requests a run records: one main-model request per
// step, exactly as the strategy sent it, and every summarizer call with
// what the compactor sent, in the order a provider received them.
func TestSimulateRecordsRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := SimConfig{Shape: ShapeManySmall, Steps: 80, Window: 8000, Seed: 3, PrepareAt: 0.45,
		Strategies: []string{StrategyEinocompact, StrategyPrepared, StrategyPruning, StrategyEino, StrategyEinoPrefix, StrategyNone}}
	res, err := Simulate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	counter := compaction.DefaultCounter()
	byName := map[string]*SimResult{}
	for _, r := range res {
		byName[r.Strategy] = r
		var mains []Request
		summaries := 0
		for _, q := range r.Requests {
			if q.Summarizer {
				summaries++
				continue
			}
			mains = append(mains, q)
		}
		calls := len(r.Unused)
		for _, c := range r.Compactions {
			calls += len(c.Calls)
		}
		if len(mains) != cfg.Steps || summaries != calls {
			t.Fatalf("%s: %d main requests for %d steps, %d summarizer requests for %d calls", r.Strategy, len(mains), cfg.Steps, summaries, calls)
		}
		for i, q := range mains {
			n, _ := counter.Count(ctx, q.Messages, q.Tools)
			if q.Step != i || n != r.Steps[i].Prompt || len(q.Tools) != len(Tools()) {
				t.Fatalf("%s step %d: recorded request of %d tokens, step %d, the run sent %d", r.Strategy, i, n, q.Step, r.Steps[i].Prompt)
			}
		}
		if r.Strategy == StrategyNone && (summaries != 0 || len(mains[cfg.Steps-1].Messages) < 2*cfg.Steps) {
			t.Fatalf("none: %d summarizer calls, %d messages at the end", summaries, len(mains[cfg.Steps-1].Messages))
		}
		if r.Strategy != StrategyNone && summaries == 0 {
			t.Fatalf("%s: no summarizer call", r.Strategy)
		}
	}
	// What each summarizer request starts with: einocompact's transcript
	// has no tools and its own system prompt; eino-prefix sends the
	// agent's conversation and tools, so its last request is a prefix.
	for _, name := range []string{StrategyEinocompact, StrategyEinoPrefix} {
		var last *Request
		for k, q := range byName[name].Requests {
			if !q.Summarizer {
				last = &byName[name].Requests[k]
				continue
			}
			aligned := len(q.Tools) > 0 && last != nil && len(q.Messages) > len(last.Messages)
			for i := 0; aligned && i < len(last.Messages); i++ {
				aligned = q.Messages[i] == last.Messages[i]
			}
			if aligned != (name == StrategyEinoPrefix) {
				t.Fatalf("%s: summarizer request at step %d extends the agent's last request: %v", name, q.Step, aligned)
			}
			if name == StrategyEinocompact && q.Messages[0].Role == schema.System && q.Messages[0] == last.Messages[0] {
				t.Fatalf("einocompact: the summarizer got the agent's system prompt")
			}
		}
	}
	// Only a request that extends the agent's can read its cache.
	for _, name := range []string{StrategyEinocompact, StrategyEinoPrefix} {
		b := BillOf(byName[name], BillConfig{Prices: PricesOpenAI})
		if (b.Summarizer.Read > 0) != (name == StrategyEinoPrefix) || b.Main.Read == 0 {
			t.Errorf("%s: summarizer read %d of %d cached, main read %d", name, b.Summarizer.Read, b.Summarizer.Input, b.Main.Read)
		}
		none := BillOf(byName[name], BillConfig{Prices: PricesNoCache})
		if none.Cost <= b.Cost || none.Main.Input != b.Main.Input {
			t.Errorf("%s: no caching costs %v, OpenAI-like %v", name, none.Cost, b.Cost)
		}
	}
}
