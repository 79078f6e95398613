package bench

import (
	"context"
	"testing"
	"time"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// A cached prefix is read only while it was used within the lifetime; a
// read renews it, and without a lifetime nothing expires.
func TestCacheTTL(t *testing.T) {
	t.Parallel()
	req := []Block{{Key: 1, Tokens: 2048}, {Key: 2, Tokens: 512}}
	models := map[string]func() CacheModel{
		"prefix":    func() CacheModel { return NewPrefixCache() },
		"anthropic": func() CacheModel { return NewAnthropicCache() },
	}
	cases := []struct {
		name  string
		ttl   time.Duration
		times []time.Duration // when the same request is sent again and again
		read  []bool          // whether each send after the first reads the cache
	}{
		{"within the lifetime", 5 * time.Minute, []time.Duration{0, 4 * time.Minute}, []bool{true}},
		{"after the lifetime", 5 * time.Minute, []time.Duration{0, 6 * time.Minute}, []bool{false}},
		{"a read renews it", 5 * time.Minute, []time.Duration{0, 4 * time.Minute, 8 * time.Minute}, []bool{true, true}},
		{"rewritten after expiring", 5 * time.Minute, []time.Duration{0, 6 * time.Minute, 7 * time.Minute}, []bool{false, true}},
		{"no lifetime", 0, []time.Duration{0, time.Hour}, []bool{true}},
	}
	for name, model := range models {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				c := model()
				e := c.(expiring)
				e.setTTL(tc.ttl)
				for k, at := range tc.times {
					e.at(at)
					use := c.Serve(req, 0)
					if k == 0 {
						continue
					}
					if got := use.Read > 0; got != tc.read[k-1] {
						t.Errorf("send %d at %v: read %d tokens, want a read: %v", k, at, use.Read, tc.read[k-1])
					}
				}
			})
		}
	}
}

// The pauses are seeded (equal arguments, equal pauses), 0 before the first
// call, and some outlive a 5-minute cache.
func TestTrajectoryPauses(t *testing.T) {
	t.Parallel()
	for _, shape := range Shapes {
		_, a := Trajectory(shape, 300, 32000, 7)
		_, b := Trajectory(shape, 300, 32000, 7)
		long := 0
		for i := range a {
			if a[i].Pause != b[i].Pause {
				t.Fatalf("%s step %d: pauses %v and %v from equal arguments", shape, i, a[i].Pause, b[i].Pause)
			}
			if (i == 0) != (a[i].Pause == 0) {
				t.Fatalf("%s step %d: pause %v", shape, i, a[i].Pause)
			}
			if a[i].Pause > compaction.DefaultCacheTTL {
				long++
			}
		}
		if long == 0 {
			t.Errorf("%s: no pause outlives a %v cache in 300 steps", shape, compaction.DefaultCacheTTL)
		}
	}
}

// With pauses and a cache lifetime, the prepared hook applies compactions
// early when the cache has gone cold, and the lifetime makes the bill
// dearer than an everlasting cache.
func TestSimulatePausesColdCache(t *testing.T) {
	t.Parallel()
	prices := compaction.PricesOpenAI
	cfg := SimConfig{Shape: ShapeManyTurns, Steps: 200, Window: 16000, Seed: 1, PrepareAt: 0.45, Prices: &prices, Pauses: true,
		Strategies: []string{StrategyPreparedAligned}}
	res, err := Simulate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.ColdApplied == 0 {
		t.Errorf("no compaction applied early on a cold cache (%d compactions)", len(r.Compactions))
	}
	everlasting := BillOf(r, BillConfig{Prices: PricesOpenAI})
	expiring := BillOf(r, BillConfig{Prices: PricesOpenAI, CacheTTL: 5 * time.Minute})
	if expiring.Main.Read >= everlasting.Main.Read || expiring.Cost <= everlasting.Cost {
		t.Errorf("with a 5-minute cache: read %d, cost %.0f; everlasting: read %d, cost %.0f; want fewer reads, a dearer bill",
			expiring.Main.Read, expiring.Cost, everlasting.Main.Read, everlasting.Cost)
	}
}
