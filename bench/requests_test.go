package bench

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/components/model"
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
		Strategies: []string{StrategyEinocompact, StrategyAligned, StrategyPrepared, StrategyPruning, StrategyPruningAligned, StrategyEino, StrategyEinoPrefix, StrategyNone}}
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
	// agent's conversation and tools, so its last request is a prefix; a
	// cache-aligned one is the agent's last request and one instruction.
	for _, name := range []string{StrategyEinocompact, StrategyEinoPrefix, StrategyAligned} {
		var last *Request
		exact := 0
		for k, q := range byName[name].Requests {
			if !q.Summarizer {
				last = &byName[name].Requests[k]
				continue
			}
			aligned := len(q.Tools) > 0 && last != nil && len(q.Messages) > len(last.Messages)
			for i := 0; aligned && i < len(last.Messages); i++ {
				aligned = q.Messages[i] == last.Messages[i]
			}
			if aligned && len(q.Messages) == len(last.Messages)+1 {
				exact++
				// The simulated summarizer sizes its summary by the
				// span the instruction names; it must find it.
				if _, ok := namedSpan(q.Messages); !ok {
					t.Fatalf("%s: no span found in %q", name, q.Messages[len(q.Messages)-1].Content)
				}
			}
			// A cache-aligned compactor may fall back to the transcript
			// request in some rounds; the other two never change shape.
			if name != StrategyAligned && aligned != (name == StrategyEinoPrefix) {
				t.Fatalf("%s: summarizer request at step %d extends the agent's last request: %v", name, q.Step, aligned)
			}
			if name == StrategyEinocompact && q.Messages[0].Role == schema.System && q.Messages[0] == last.Messages[0] {
				t.Fatalf("einocompact: the summarizer got the agent's system prompt")
			}
		}
		if name == StrategyAligned && exact == 0 {
			t.Fatalf("%s: no summarizer request is the agent's last request and one instruction", name)
		}
	}
	// Only a request that extends the agent's can read its cache.
	for _, name := range []string{StrategyEinocompact, StrategyEinoPrefix, StrategyAligned} {
		b := BillOf(byName[name], BillConfig{Prices: PricesOpenAI})
		if (b.Summarizer.Read > 0) != (name != StrategyEinocompact) || b.Main.Read == 0 {
			t.Errorf("%s: summarizer read %d of %d cached, main read %d", name, b.Summarizer.Read, b.Summarizer.Input, b.Main.Read)
		}
		none := BillOf(byName[name], BillConfig{Prices: PricesNoCache})
		if none.Cost <= b.Cost || none.Main.Input != b.Main.Input {
			t.Errorf("%s: no caching costs %v, OpenAI-like %v", name, none.Cost, b.Cost)
		}
	}
}

// A cache-aligned request is the agent's conversation and an instruction
// naming a span; the simulated summarizer sizes its summary by that span,
// as it sizes a transcript request's by the transcript, and honours a cap
// on its output.
func TestSummarizerSizesNamedSpan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	counter := compaction.DefaultCounter()
	conv := Conversation(40, 7)
	span := conv[3:11]
	spanTokens, _ := counter.Count(ctx, span, nil)
	whole, _ := counter.Count(ctx, conv, nil)
	instruction := schema.UserMessage("Stop working on the task for this one reply. Messages 4-8, 9 and 10-11 of this conversation (counting its first message as 1), from a to b, are about to be replaced by a summary.")
	var calls []SummaryCall
	s := &Summarizer{Counter: counter, OnCall: func(c SummaryCall) { calls = append(calls, c) }}
	cases := []struct {
		name  string
		input []*schema.Message
		opts  []model.Option
		want  int
	}{
		{"named span", append(slices.Clip(conv), instruction), nil, OutputTokens(spanTokens)},
		{"no span named", conv, nil, OutputTokens(whole)},
		{"capped", conv, []model.Option{model.WithMaxTokens(100)}, 100},
		{"span out of range", append(slices.Clip(conv[:5]), instruction), nil, OutputTokens(mustCount(t, counter, append(slices.Clip(conv[:5]), instruction)))},
	}
	for _, c := range cases {
		calls = nil
		if _, err := s.Generate(ctx, c.input, c.opts...); err != nil {
			t.Fatal(err)
		}
		if got := calls[0].OutputTokens; got != c.want {
			t.Errorf("%s: %d output tokens, want %d", c.name, got, c.want)
		}
	}
}

func mustCount(t *testing.T, c compaction.TokenCounter, msgs []*schema.Message) int {
	t.Helper()
	n, err := c.Count(context.Background(), msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
