package compaction

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// The pay-for-itself rule on one compaction of a call of 22,400 tokens
// (trigger 22,400, system prompt 1,000, 600 tokens a call). Under
// OpenAI-like prices a kept token re-sent costs 1-0.1 = 0.9 more than read
// from the cache; a replaced token saves 0.1 on each call until the next
// compaction, and there are (22,400-kept)/600 of them.
func TestCompactionPaysForItself(t *testing.T) {
	t.Parallel()
	c := cycle{estimate: 22400, trigger: 22400, prefix: 1000, growth: 600}
	cases := []struct {
		name   string
		prices Prices
		kept   int
		pays   bool
	}{
		// 16 calls save 9,600*0.1 each = 15,360; re-sending 11,800 costs 10,620.
		{"usual compaction, OpenAI-like", PricesOpenAI, 12800, true},
		// 4 calls save 2,400*0.1 each = 960; re-sending 19,000 costs 17,100.
		{"small rewrite just above the trigger, OpenAI-like", PricesOpenAI, 20000, false},
		// Without a cache re-sending costs nothing extra.
		{"small rewrite, no caching", PricesNoCache, 20000, true},
		// 16 calls save 15,360; re-sending 11,800 at 1.25-0.1 costs 13,570.
		{"usual compaction, Anthropic-like", PricesAnthropic, 12800, true},
		// 14 calls (8,400/600) save 8,000*0.1 each = 11,200; re-sending
		// 13,400 costs 12,060 at 0.9 and 15,410 at 1.15.
		{"shallower compaction, OpenAI-like", PricesOpenAI, 14400, false},
		// 21 calls (12,400/600, 20.67) save 12,400*0.1 each = 25,627;
		// re-sending 9,000 costs 10,350 at 1.15.
		{"deep compaction, Anthropic-like", PricesAnthropic, 10000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := c.pays(tc.prices, tc.kept); got != tc.pays {
				t.Errorf("pays(kept %d) = %v (saving %.0f, re-sending %.0f), want %v",
					tc.kept, got, c.saving(tc.prices, tc.kept), c.resent(tc.prices, tc.kept), tc.pays)
			}
		})
	}
}

// keepOneLess drops only the oldest tool step: a small rewrite.
var keepOneLess = CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
	if len(msgs) < 6 {
		return nil, nil
	}
	return append([]*schema.Message{msgs[0], msgs[1]}, msgs[4:]...), nil
})

// Through the hook: with Prices a small rewrite at the trigger is not
// applied and is reported Unprofitable; without Prices, or at the ceiling,
// it is applied; an applied compaction reports the cached prefix it
// invalidated.
func TestHookPricesRefusesUnprofitableRewrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const window = 10000
	conv := func(to int) []*schema.Message {
		msgs := []*schema.Message{sys("rules"), user("task")}
		for i := 0; count(fc1, msgs...) < to; i++ {
			id := fmt.Sprintf("s%d", i)
			msgs = append(msgs, call(id), result(id, rep("z", 200)))
		}
		return msgs
	}
	cases := []struct {
		name    string
		prices  *Prices
		size    int
		applied bool
	}{
		{"OpenAI-like, at the trigger", &PricesOpenAI, 7000, false},
		{"Anthropic-like, at the trigger", &PricesAnthropic, 7000, false},
		{"no prices, at the trigger", nil, 7000, true},
		{"no caching, at the trigger", &PricesNoCache, 7000, true},
		{"OpenAI-like, at the ceiling", &PricesOpenAI, 8500, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewCompactionHook(ctx, &HookConfig{Compactor: keepOneLess, ContextWindow: window, TokenCounter: fc1,
				Logger: discardLogger(), Prices: tc.prices})
			if err != nil {
				t.Fatal(err)
			}
			msgs := conv(tc.size)
			state := &hooks.State{Messages: msgs}
			r, err := h.Decide(ctx, state)
			if err != nil {
				t.Fatal(err)
			}
			if r.Compacted != tc.applied || r.Unprofitable == tc.applied {
				t.Fatalf("compacted %v unprofitable %v; want compacted %v", r.Compacted, r.Unprofitable, tc.applied)
			}
			if !tc.applied {
				if len(state.Messages) != len(msgs) || r.InvalidatedTokens != 0 {
					t.Errorf("refused, yet the conversation changed (%d messages, %d before) or %d tokens were invalidated",
						len(state.Messages), len(msgs), r.InvalidatedTokens)
				}
				again, err := h.Decide(ctx, &hooks.State{Messages: msgs})
				if err != nil || !again.BackedOff {
					t.Errorf("the next call with the same conversation: backed off %v, err %v; want a backoff", again.BackedOff, err)
				}
				return
			}
			// No assistant reply ends the conversation's previous request
			// before the last one: everything from the first replaced
			// message up to the last call was cached and is dropped.
			want := count(fc1, msgs[2:LastAssistantIndex(msgs)]...)
			if r.InvalidatedTokens != want {
				t.Errorf("InvalidatedTokens %d, want %d", r.InvalidatedTokens, want)
			}
		})
	}
	if _, err := NewCompactionHook(ctx, &HookConfig{Compactor: keepOneLess, ContextWindow: window, Prices: &Prices{Output: -1}}); err == nil ||
		!strings.Contains(err.Error(), "Prices.Output") || !strings.Contains(err.Error(), "-1") {
		t.Errorf("negative output price: error %v, want one naming Prices.Output and -1", err)
	}
}

// Prices.Validate names the field it refuses, CacheTTL included, and the
// presets model the providers' documented cache lifetimes.
func TestPricesValidateCacheTTL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		p       Prices
		wantErr string
	}{
		{"no expiry", Prices{CachedInput: 0.1, Output: 8}, ""},
		{"five minutes", Prices{CachedInput: 0.1, Output: 8, CacheTTL: 5 * time.Minute}, ""},
		{"negative TTL", Prices{CachedInput: 0.1, Output: 8, CacheTTL: -time.Second}, "Prices.CacheTTL"},
		{"negative price", Prices{CachedInput: -1}, "Prices.CachedInput"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.p.Validate()
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, tc.wantErr)
			}
		})
	}
	_, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: keepOneLess, ContextWindow: 1000,
		Prices: &Prices{CacheTTL: -time.Minute}})
	if err == nil || !strings.Contains(err.Error(), "HookConfig.Prices") || !strings.Contains(err.Error(), "CacheTTL") {
		t.Fatalf("NewCompactionHook error = %v, want one naming HookConfig.Prices and CacheTTL", err)
	}
	for name, p := range map[string]Prices{"openai": PricesOpenAI, "anthropic": PricesAnthropic} {
		if p.CacheTTL != 5*time.Minute {
			t.Errorf("preset %s: CacheTTL %v, want 5m", name, p.CacheTTL)
		}
	}
	if PricesNoCache.CacheTTL != 0 {
		t.Errorf("preset no_cache: CacheTTL %v, want 0 (no cache, nothing expires)", PricesNoCache.CacheTTL)
	}
}
