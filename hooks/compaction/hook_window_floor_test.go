package compaction

import (
	"context"
	"math"
	"testing"
)

// TestHookFloorOfEveryWindow: a hook is built for every window from one
// token to math.MaxInt, and the verbatim floor it keeps is a fifth of the
// window and at most 0.2 % more (internal/cost's TestVerbatimFloorOfEveryWindow
// checks the arithmetic alone; this checks the hook accepts those windows and
// uses it).
func TestHookFloorOfEveryWindow(t *testing.T) {
	t.Parallel()
	for _, window := range []int{1, 999, 20000, 32000, 1 << 40, math.MaxInt} {
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: &deepSpy{}, ContextWindow: window, TokenCounter: fc1})
		if err != nil {
			t.Fatalf("window %d: %v", window, err)
		}
		got, fifth := h.e.VerbatimFloor(), window/5
		if got < fifth || got > window || (window >= 1000 && float64(got) > 0.2021*float64(window)+1) {
			t.Errorf("window %d: floor %d, want a fifth (%d) and at most 0.2 %% more", window, got, fifth)
		}
	}
}
