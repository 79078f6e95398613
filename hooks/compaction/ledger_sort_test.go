package compaction

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// TestSortLostIsTheStableOrder checks sortLost against the stable sort it
// replaced, with counts that pack into one key and counts that do not.
func TestSortLostIsTheStableOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, spread := range []int{3, 50, 1 << 22} {
		for range 200 {
			lost := make([]ledgerEntry, r.IntN(300))
			for i := range lost {
				lost[i] = ledgerEntry{value: strconv.Itoa(i), uses: r.IntN(spread), last: r.IntN(spread)}
			}
			want := slices.Clone(lost)
			slices.SortStableFunc(want, func(a, b ledgerEntry) int {
				return cmp.Or(cmp.Compare(b.uses, a.uses), cmp.Compare(b.last, a.last))
			})
			if got := sortLost(lost); !reflect.DeepEqual(got, want) && len(want) > 0 {
				t.Fatalf("spread %d: sortLost differs from the stable sort", spread)
			}
		}
	}
}
