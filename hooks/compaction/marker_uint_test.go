package compaction

import (
	"math"
	"testing"
)

// TestMarkerIntRejectsUnsignedOverflow: an unsigned count too large for int
// is not a count, whichever unsigned type holds it; it must not come back
// wrapped round to a negative number.
func TestMarkerIntRejectsUnsignedOverflow(t *testing.T) {
	t.Parallel()
	for _, v := range []any{uint(math.MaxUint64), uint64(math.MaxUint64), uint(1) << 63} {
		if n, ok := markerInt(v); ok {
			t.Errorf("markerInt(%T %v) = %d, true; want false", v, v, n)
		}
	}
	if n, ok := markerInt(uint(7)); !ok || n != 7 {
		t.Errorf("markerInt(uint 7) = %d, %v; want 7, true", n, ok)
	}
}
