package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// BenchmarkCounter is the approximate counter's throughput over whole
// conversations; MB/s is relative to the bytes of message text (TextBytes).
// Its per-message cache is off, so every count measures every message: what
// a conversation costs the first time it is seen, and what every count
// costs with DisableCache. (BenchmarkNoTrigger shows the cache at work.)
func BenchmarkCounter(b *testing.B) {
	ctx := context.Background()
	c, err := compaction.NewApproximateTokenCounter(&compaction.ApproximateConfig{DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes {
		msgs := fixture(n, false)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(TextBytes(msgs))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Count(ctx, msgs, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
