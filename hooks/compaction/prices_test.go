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
