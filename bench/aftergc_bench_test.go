//go:build gcbench

package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// This file is left out of `make bench` (build tag gcbench): every iteration
// forces a garbage collection outside the timer, so reaching the bench time
// takes minutes once the larger fixtures are on the heap. Run it with
//
//	go test -tags gcbench -run='^$' -bench='BenchmarkCounter$|BenchmarkCountAfterGC' -benchtime=200ms -count=3 ./bench/

// BenchmarkCountAfterGC is the approximate counter's count of a conversation
// it has seen, right after a garbage collection: its cache then checks every
// remembered message through its weak pointer, which it skips between
// collections (BenchmarkNoTrigger's steady state). The collection itself is
// not timed.
func BenchmarkCountAfterGC(b *testing.B) {
	ctx := context.Background()
	c := compaction.DefaultCounter()
	for _, n := range benchSizes {
		msgs := fixture(n, false)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if _, err := c.Count(ctx, msgs, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				if _, err := c.Count(ctx, msgs, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
