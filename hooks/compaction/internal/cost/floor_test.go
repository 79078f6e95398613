package cost

import (
	"math"
	"testing"
)

// The verbatim floor is a fifth of the window and 0.2 % more, rounded up,
// for every window a hook accepts, the largest included.
func TestVerbatimFloorOfEveryWindow(t *testing.T) {
	t.Parallel()
	for _, window := range []int{1, 999, 20000, 32000, 1 << 40, math.MaxInt} {
		got, fifth := Floor(window), window/5
		if got < fifth || got > window || (window >= 1000 && float64(got) > 0.2021*float64(window)+1) {
			t.Errorf("window %d: floor %d, want a fifth (%d) and at most 0.2 %% more", window, got, fifth)
		}
	}
}
