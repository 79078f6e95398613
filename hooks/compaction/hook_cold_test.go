package compaction

import (
	"context"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
)

// coldHook is ppHook with prices (nil: the default) and a clock fixed at now.
func coldHook(t *testing.T, c Compactor, prices *Prices, now time.Time) *CompactionHook {
	t.Helper()
	size := func(n int) float64 { return float64(count(fc1, ppConv("task-0", n)...)) }
	window := 2 * size(6)
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: int(window), TokenCounter: fc1, Logger: discardLogger(),
		CompactAt: (size(5) + size(6)) / 2 / window, PrepareAt: (size(3) + size(4)) / 2 / window, CompactTo: size(2) / window, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	h.e.Now = func() time.Time { return now }
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// TestColdCacheAppliesPreparedCompaction: a call below the trigger applies
// the compaction prepared for its conversation when the previous model
// call returned longer than Prices.CacheTTL ago (nothing is cached any
// more, so applying it invalidates nothing), and only then.
func TestColdCacheAppliesPreparedCompaction(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	withTTL := func(ttl time.Duration) *Prices { p := PricesAnthropic; p.CacheTTL = ttl; return &p }
	cases := []struct {
		name    string
		prices  *Prices
		last    time.Time // State.LastModelCallAt
		applied bool
	}{
		{"cold: reply 6 minutes ago, 5-minute cache", withTTL(5 * time.Minute), now.Add(-6 * time.Minute), true},
		{"warm: reply 4 minutes ago, 5-minute cache", withTTL(5 * time.Minute), now.Add(-4 * time.Minute), false},
		{"one-hour cache still warm after 6 minutes", withTTL(time.Hour), now.Add(-6 * time.Minute), false},
		{"no expiry modelled (CacheTTL 0)", withTTL(0), now.Add(-time.Hour), false},
		{"time of the last reply unknown", withTTL(5 * time.Minute), time.Time{}, false},
		{"default prices assume PricesOpenAI's 5 minutes", nil, now.Add(-6 * time.Minute), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &ppCompactor{}
			h := coldHook(t, c, tc.prices, now)
			msgs := ppPrepared(t, h)
			grown := ppStep(msgs, "task-0", 4) // above PrepareAt, below the trigger
			st := &hooks.State{Messages: grown, LastModelCallAt: tc.last}
			r, err := h.Decide(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if r.Triggered {
				t.Fatalf("the call triggered (estimated %d, trigger %.0f); the test needs it below", r.Estimated, r.Trigger)
			}
			if r.Compacted != tc.applied || r.Prepared != tc.applied || r.ColdCache != tc.applied {
				t.Fatalf("compacted=%v prepared=%v cold=%v, want all %v", r.Compacted, r.Prepared, r.ColdCache, tc.applied)
			}
			if len(c.callsNow()) != 1 {
				t.Fatalf("compactor calls = %d, want only the preparation", len(c.callsNow()))
			}
			if !tc.applied {
				if len(st.Messages) != len(grown) {
					t.Fatalf("messages %d -> %d, want the call to go out unchanged", len(grown), len(st.Messages))
				}
				return
			}
			if r.InvalidatedTokens != 0 {
				t.Errorf("InvalidatedTokens = %d on a cold cache, want 0", r.InvalidatedTokens)
			}
			if len(st.Messages) >= len(grown) || st.Messages[len(st.Messages)-1] != grown[len(grown)-1] {
				t.Errorf("messages %d -> %d, want the prepared summary with the step appended since kept", len(grown), len(st.Messages))
			}
		})
	}
}

// TestColdCacheInvalidatesNothing: a compaction at the trigger counts the
// prefix it makes the provider drop only while the cache is warm, and the
// pay-for-itself rule finds nothing to re-send on a cold cache.
func TestColdCacheInvalidatesNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		last time.Time
		cold bool
	}{
		{"warm", now.Add(-time.Minute), false},
		{"cold", now.Add(-10 * time.Minute), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := coldHook(t, &ppCompactor{}, &PricesNoCache, now)
			prices := cost.Rates(Prices{CachedInput: 0.1, Output: 8, CacheTTL: 5 * time.Minute})
			h.e.PrepareAt, h.e.Prices = 0, &prices
			st := &hooks.State{Messages: ppConv("task-0", 6), LastModelCallAt: tc.last}
			r, err := h.Decide(context.Background(), st)
			if err != nil || !r.Triggered {
				t.Fatalf("triggered=%v err=%v, want a triggered call", r.Triggered, err)
			}
			if r.ColdCache != tc.cold || (r.InvalidatedTokens == 0) != tc.cold {
				t.Fatalf("cold=%v invalidated=%d unprofitable=%v, want cold=%v and invalidated tokens only when warm",
					r.ColdCache, r.InvalidatedTokens, r.Unprofitable, tc.cold)
			}
		})
	}
	// The cost model: a small rewrite that does not pay for re-sending what
	// it keeps (TestCompactionPaysForItself) pays on a cold cache.
	c, openAI := cost.Cycle{Estimate: 22400, Trigger: 22400, Prefix: 1000, Growth: 600}, cost.Rates(PricesOpenAI)
	if c.Pays(openAI, 20000) {
		t.Fatal("the small rewrite pays on a warm cache; the case no longer tests the rule")
	}
	c.Cold = true
	if !c.Pays(openAI, 20000) || c.Resent(openAI, 20000) != 0 {
		t.Errorf("on a cold cache: pays=%v resent=%v, want true and 0", c.Pays(openAI, 20000), c.Resent(openAI, 20000))
	}
}
