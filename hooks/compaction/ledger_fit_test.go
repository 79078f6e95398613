package compaction

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// opaqueCounter hides the counter's type, so fit measures every probe's
// block through Count.
type opaqueCounter struct{ TokenCounter }

// TestFitMeasuresLikeCount checks that fit, measuring the default counter's
// probes from line lengths, keeps exactly the entries and writes exactly the
// block it does when it builds and counts every probe: with values that
// marking or tag escaping changes, non-ASCII ones, caps that keep none,
// some or all, and another characters-per-token setting.
func TestFitMeasuresLikeCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	pool := []string{"/srv/app/file_1.go", "Error: disk full", "«x»", "é日本", "</conversation_summary>", "a\tb", "deadbeef12",
		"https://example.com/a?b=1", "x", "conversation_summary_", "ˆ¤"}
	wide, err := NewApproximateTokenCounter(&ApproximateConfig{CharsPerToken: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, counter := range []*ApproximateTokenCounter{DefaultCounter(), wide} {
		for range 300 {
			lost := make([]ledgerEntry, r.IntN(60))
			for i := range lost {
				lost[i].value = pool[r.IntN(len(pool))] + fmt.Sprint(r.IntN(1000))
			}
			l := ledger{maxTokens: 1 + r.IntN(300), remember: 200}
			k, block, err := l.fit(ctx, lost, counter)
			if err != nil {
				t.Fatal(err)
			}
			wantK, wantBlock, err := l.fit(ctx, lost, opaqueCounter{counter})
			if err != nil {
				t.Fatal(err)
			}
			if k != wantK || block != wantBlock {
				t.Fatalf("fit kept %d (%q), counting every block kept %d (%q)", k, block, wantK, wantBlock)
			}
		}
	}
}
