package compaction

import (
	"context"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestTurnUnits checks that tier 1 takes only the older part of a long
// historical turn when that is enough, keeping its recent steps verbatim.
func TestTurnUnits(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		sys("rules"),
		user("old task"),                            // 1
		call("c1"), result("c1", rep("first ", 50)), // 2, 3
		note("sliding_window", "a note inside the turn"), // 4: travels with the step before it
		call("c2"), result("c2", rep("second ", 50)), // 5, 6
		asst("old answer"),                // 7
		user("current task"),              // 8
		call("c3"), result("c3", "third"), // 9, 10
	}
	without := func(drop ...int) int {
		var kept []*schema.Message
		for i, m := range msgs {
			if !slicesContains(drop, i) {
				kept = append(kept, m)
			}
		}
		return count(fc1, kept...)
	}
	tests := []struct {
		name   string
		target int
		want   []int
	}{
		{"request and first step suffice", without(1, 2, 3, 4) + 1, []int{1, 2, 3, 4}},
		{"one more step", without(1, 2, 3, 4, 5, 6) + 1, []int{1, 2, 3, 4, 5, 6}},
		{"whole turn", 1, []int{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(1)})
			plan, err := c.Plan(context.Background(), msgs, tc.target, fc1)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Tier != TierHistoricalTurns || !reflect.DeepEqual(plan.Indices, tc.want) {
				t.Errorf("plan %+v, want %s %v", plan, TierHistoricalTurns, tc.want)
			}
		})
	}
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestTurnUnitsShape(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{user("q"), asst("a"), user("q2"), call("x"), result("x", "r"), asst("done")}
	got := turnUnits(msgs, [][]int{{0, 1}, {2, 3, 4, 5}})
	want := [][]int{{0, 1}, {2, 3, 4}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
	if got := turnUnits(msgs, [][]int{{0}}); !reflect.DeepEqual(got, [][]int{{0}}) {
		t.Errorf("a request alone is one unit: %v", got)
	}
}
