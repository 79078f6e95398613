package cost_test

import (
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
)

// The pay-for-itself rule on one compaction of a call of 22,400 tokens
// (trigger 22,400, system prompt 1,000, 600 tokens a call). Under
// OpenAI-like prices a kept token re-sent costs 1-0.1 = 0.9 more than read
// from the cache; a replaced token saves 0.1 on each call until the next
// compaction, and there are (22,400-kept)/600 of them.
func TestCompactionPaysForItself(t *testing.T) {
	t.Parallel()
	c := cost.Cycle{Estimate: 22400, Trigger: 22400, Prefix: 1000, Growth: 600}
	cases := []struct {
		name   string
		prices compaction.Prices
		kept   int
		pays   bool
	}{
		// 16 calls save 9,600*0.1 each = 15,360; re-sending 11,800 costs 10,620.
		{"usual compaction, OpenAI-like", compaction.PricesOpenAI, 12800, true},
		// 4 calls save 2,400*0.1 each = 960; re-sending 19,000 costs 17,100.
		{"small rewrite just above the trigger, OpenAI-like", compaction.PricesOpenAI, 20000, false},
		// Without a cache re-sending costs nothing extra.
		{"small rewrite, no caching", compaction.PricesNoCache, 20000, true},
		// 16 calls save 15,360; re-sending 11,800 at 1.25-0.1 costs 13,570.
		{"usual compaction, Anthropic-like", compaction.PricesAnthropic, 12800, true},
		// 14 calls (8,400/600) save 8,000*0.1 each = 11,200; re-sending
		// 13,400 costs 12,060 at 0.9 and 15,410 at 1.15.
		{"shallower compaction, OpenAI-like", compaction.PricesOpenAI, 14400, false},
		// 21 calls (12,400/600, 20.67) save 12,400*0.1 each = 25,627;
		// re-sending 9,000 costs 10,350 at 1.15.
		{"deep compaction, Anthropic-like", compaction.PricesAnthropic, 10000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := c.Pays(cost.Rates(tc.prices), tc.kept); got != tc.pays {
				t.Errorf("pays(kept %d) = %v (saving %.0f, re-sending %.0f), want %v",
					tc.kept, got, c.Saving(cost.Rates(tc.prices), tc.kept), c.Resent(cost.Rates(tc.prices), tc.kept), tc.pays)
			}
		})
	}
}
