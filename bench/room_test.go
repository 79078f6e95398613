package bench

import (
	"math"
	"testing"
)

// RoomOf counts compactions per 100 calls and measures the room each
// bought below the trigger in steps of the median growth (issue 32 item 5).
func TestRoomOf(t *testing.T) {
	t.Parallel()
	steps := func(before ...int) []StepRecord {
		out := make([]StepRecord, len(before))
		for i, b := range before {
			out[i] = StepRecord{Step: i, Before: b}
		}
		return out
	}
	cases := []struct {
		name                   string
		res                    *SimResult
		growth                 float64
		per, median, least     float64
		under                  int
		trigger                int
		compactions, callsWant int
	}{
		{"no compaction", &SimResult{Steps: steps(100, 200, 300, 400)}, 100, 0, 0, 0, 0, 1000, 0, 4},
		{"one cramped, one roomy",
			&SimResult{Steps: steps(100, 200, 400, 500), Compactions: []Compaction{{After: 950}, {After: 400}}},
			100, 50, (0.5 + 6) / 2, 0.5, 1, 1000, 2, 4},
		{"odd number of steps", &SimResult{Steps: steps(0, 100, 400), Compactions: []Compaction{{After: 400}}},
			200, 100.0 / 3, 3, 3, 0, 1000, 1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := StepGrowth(tc.res)
			if g != tc.growth {
				t.Fatalf("StepGrowth = %v, want %v", g, tc.growth)
			}
			rm := RoomOf(tc.res, tc.trigger, g)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if rm.Compactions != tc.compactions || rm.Calls != tc.callsWant || !near(rm.PerHundredCalls, tc.per) ||
				!near(rm.MedianSteps, tc.median) || !near(rm.MinSteps, tc.least) || rm.UnderTwo != tc.under {
				t.Errorf("RoomOf = %+v; want %d compactions in %d calls, %.2f per 100, median %.2f, least %.2f, %d under two",
					rm, tc.compactions, tc.callsWant, tc.per, tc.median, tc.least, tc.under)
			}
		})
	}
}
