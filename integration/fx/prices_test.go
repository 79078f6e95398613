package compactfx

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.yaml.in/yaml/v3"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// compaction.prices takes a preset name or the three numbers; bad values are
// named with their key; set, the hook applies the bill rule, seen in a
// deeper target than compact_to gives.
func TestPricesKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		line    string // "" leaves the key out
		want    *compaction.Prices
		wantErr string
	}{
		{"left out", "", nil, ""},
		{"openai preset", "prices: openai", &compaction.PricesOpenAI, ""},
		{"anthropic preset", "prices: anthropic", &compaction.PricesAnthropic, ""},
		{"no_cache preset", "prices: no_cache", &compaction.PricesNoCache, ""},
		{"numbers", "prices: {cached_input: 0.25, cache_write: 1.5, output: 4}", &compaction.Prices{CachedInput: 0.25, CacheWrite: 1.5, Output: 4}, ""},
		{"unknown preset", "prices: cheap", nil, `"cheap" is not a price preset`},
		{"negative price", "prices: {cached_input: -0.1, output: 4}", nil, "compaction.prices"},
		{"unknown field", "prices: {cached: 0.1}", nil, "cached"},
		{"numbers with cache_ttl", "prices: {cached_input: 0.1, output: 8, cache_ttl: 10m}", &compaction.Prices{CachedInput: 0.1, Output: 8, CacheTTL: 10 * time.Minute}, ""},
		{"preset with cache_ttl", "prices: {preset: anthropic, cache_ttl: 1h}", &compaction.Prices{CachedInput: 0.1, CacheWrite: 1.25, Output: 5, CacheTTL: time.Hour}, ""},
		{"negative cache_ttl", "prices: {cached_input: 0.1, output: 8, cache_ttl: -5m}", nil, "CacheTTL"},
		{"cache_ttl without a unit", "prices: {cached_input: 0.1, output: 8, cache_ttl: 300}", nil, "not a duration"},
		{"unknown preset in a mapping", "prices: {preset: cheap, cache_ttl: 1h}", nil, `"cheap" is not a price preset`},
		{"a price beside a preset", "prices: {preset: openai, output: 4}", nil, `"output" cannot be set beside it`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "compaction:\n  context_window: 32000\n"
			if tc.line != "" {
				file += "  " + tc.line + "\n"
			}
			cfg, err := parse([]byte(file))
			if err == nil {
				err = cfg.Validate()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Compaction.Prices.prices()
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("prices %+v, want %+v", got, tc.want)
			}
			var hook *compaction.CompactionHook
			if err := fx.New(fx.NopLogger, Module(cfg), fx.Populate(&hook)).Err(); err != nil {
				t.Fatal(err)
			}
			// A conversation at the trigger: the target is compact_to's,
			// and the compaction goes deeper (Report.Deep) under every
			// price, the assumed ones included, leaving less than it.
			r, err := hook.Decide(context.Background(), &hooks.State{Messages: fetchConversation()})
			if err != nil || !r.Triggered {
				t.Fatalf("triggered %v, err %v", r.Triggered, err)
			}
			_, usual := hook.Thresholds()
			usual -= r.Overhead
			if r.Target != usual || !r.Deep || !r.Compacted || r.TokensAfter >= usual {
				t.Errorf("prices %+v: target %d (compact_to's %d), deep %v, compacted %v to %d tokens; want a deep compaction below compact_to's target",
					tc.want, r.Target, usual, r.Deep, r.Compacted, r.TokensAfter)
			}
		})
	}
}

// fetchConversation is a task of 60 fetch steps of 1,500 characters each,
// past the trigger of a 32,000-token window.
func fetchConversation() []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("rules"), schema.UserMessage("fetch everything")}
	for i := range 60 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "fetch", Arguments: "{}"}}}),
			schema.ToolMessage(strings.Repeat("data ", 300), id, schema.WithToolName("fetch")))
	}
	return msgs
}

// A preset whose lifetime cache_ttl replaced is written back with it, so
// the Config round-trips; a plain preset stays its name.
func TestPricesCacheTTLRoundTrip(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"{preset: anthropic, cache_ttl: 1h}", "openai", "{cached_input: 0.2, output: 4, cache_ttl: 7m}"} {
		var p PricesConfig
		if err := yaml.Unmarshal([]byte(in), &p); err != nil {
			t.Fatal(err)
		}
		out, err := yaml.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back PricesConfig
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s written as %s: %v", in, out, err)
		}
		if *back.prices() != *p.prices() {
			t.Errorf("%s written as %s reads back as %+v, want %+v", in, out, *back.prices(), *p.prices())
		}
	}
}
