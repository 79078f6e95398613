package plan

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestPlanSparesRecentSteps: once the planner plans ahead, the newest steps
// that hold a third of the target stay verbatim, beyond MinKeepSteps, when the
// older steps and the task's earlier summary reach within 1/CloseEnough of
// the target; when they cannot, the round is planned without that floor and
// takes the large recent step.
func TestPlanSparesRecentSteps(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current task"), summary(rep("earlier work ", 40), 4),
		call("a1"), result("a1", rep("older result ", 30)),
		call("a2"), result("a2", rep("older result ", 30)),
		call("big"), result("big", rep("large recent output ", 60)),
		call("n"), result("n", "newest"),
	}
	older := []int{2, 3, 4, 5, 6} // the summary and the two older steps
	big := []int{7, 8}
	all := countOf(fc1, msgs...)
	withoutOlder := all - countOf(fc1, msgs[2], msgs[3], msgs[4], msgs[5], msgs[6])
	tests := []struct {
		name   string
		target int
		want   []int // what the plan must take
		spared []int // what it must leave
	}{
		// The older part replaced by a 20-token summary lands 10 tokens
		// above the target, within the band: the large step stays.
		{"the older part reaches the band", withoutOlder + 20 - 10, older, big},
		// Far below that, only the large step can get there.
		{"only the large step reaches", withoutOlder / 3, big, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if floor := tc.target / recentShare; floor > countOf(fc1, msgs[7:]...) || floor <= countOf(fc1, msgs[9:]...) {
				t.Fatalf("fixture: the spared share of the target (%d) must reach into the large step, not stop at the newest", floor)
			}
			c := New(Config{MinKeep: 1, Approx: 20})
			c.Observe(400, 20)
			p, err := c.Plan(context.Background(), msgs, tc.target, fc1, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range tc.want {
				if !slices.Contains(p.Indices, i) {
					t.Errorf("plan %+v does not take message %d", p, i)
				}
			}
			for _, i := range tc.spared {
				if slices.Contains(p.Indices, i) {
					t.Errorf("plan %+v takes message %d, one of the newest steps", p, i)
				}
			}
		})
	}
}
