package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// BenchmarkCounter is the approximate counter's throughput over whole
// conversations; MB/s is relative to the bytes of message text (TextBytes).
func BenchmarkCounter(b *testing.B) {
	ctx := context.Background()
	c := compaction.DefaultCounter()
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
