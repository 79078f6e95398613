package tiktoken

import (
	"context"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// tkBench counts the bundled sample b.N times and reports throughput in
// exact o200k tokens per second, so both counters are measured on the same
// scale whatever number each returns.
func tkBench(b *testing.B, counter compaction.TokenCounter) {
	msgs := tkSample(b)
	ref := tkNew(b, nil)
	tokens, err := ref.Count(context.Background(), msgs, nil)
	if err != nil {
		b.Fatal(err)
	}
	// Loads the encoding (and, for a cached counter, fills the cache) outside the timing.
	if _, err := counter.Count(context.Background(), msgs, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := counter.Count(context.Background(), msgs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// The Cold benchmarks tokenize everything every time; the Cached ones count
// a conversation already seen, as a hook does on every model call after the
// first.
func BenchmarkExactO200kCold(b *testing.B) {
	tkBench(b, tkNew(b, &Config{Encoding: O200kBase, DisableCache: true}))
}
func BenchmarkExactCl100kCold(b *testing.B) {
	tkBench(b, tkNew(b, &Config{Encoding: Cl100kBase, DisableCache: true}))
}
func BenchmarkExactO200kCached(b *testing.B)  { tkBench(b, tkNew(b, &Config{Encoding: O200kBase})) }
func BenchmarkExactCl100kCached(b *testing.B) { tkBench(b, tkNew(b, &Config{Encoding: Cl100kBase})) }
func BenchmarkApproximate(b *testing.B)       { tkBench(b, compaction.DefaultCounter()) }
