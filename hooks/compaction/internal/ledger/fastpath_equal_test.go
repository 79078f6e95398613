package ledger_test

import (
	"reflect"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
	"github.com/einocompact/einocompact/internal/fastpathtest"
)

// TestCollectEqualsReference checks that the ledger's Collect finds the same
// identifiers, with the same uses and positions, as the straightforward
// extraction message by message, over whole conversations and over their
// older halves (what a round replaces).
func TestCollectEqualsReference(t *testing.T) {
	t.Parallel()
	for name, msgs := range fastpathtest.Conversations(t) {
		idx := fastpathtest.AllIndices(msgs)
		for _, part := range [][]int{idx, idx[:len(idx)/2], idx[len(idx)/3:]} {
			got, want := ledger.DefaultCollect(msgs, part), ledger.ReferenceCollect(msgs, part)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %d messages: collect found %d identifiers, the reference %d, or they differ", name, len(part), len(got), len(want))
			}
		}
	}
}
