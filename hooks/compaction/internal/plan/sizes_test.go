package plan

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// Near the target, a follow-up round that is expected to close less than a
// quarter of the remaining gap is not made; far from it, or when it closes
// enough, it is.
func TestFollowUpRoundMustCloseEnoughOfTheGap(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current task"),
		call("small"), result("small", rep("tiny ", 10)),
		call("large"), result("large", rep("large result ", 200)),
		call("newest"), result("newest", "n")}
	c := New(Config{MinKeep: 1, Approx: 1})
	c.Observe(1000, 20) // one reply seen: a summary is expected at 20 tokens
	small, large := countOf(fc1, msgs[2], msgs[3]), countOf(fc1, msgs[4], msgs[5])
	gap := large - 20 // the large step closes the gap exactly
	if small-20 <= 0 || 4*(small-20) >= gap {
		t.Fatalf("fixture sizes: small step %d, large step %d tokens", small, large)
	}
	cases := []struct {
		name            string
		indices         []int
		current, target int
		skip            bool
	}{
		{"near the target, a step that closes little", []int{2, 3}, 5 * gap, 4 * gap, true},
		{"near the target, a step that closes the gap", []int{4, 5}, 5 * gap, 4 * gap, false},
		// the same gap above a target four times smaller than it: the
		// reference's rounds go on.
		{"far from the target", []int{2, 3}, gap + gap/4, gap / 4, false},
	}
	for _, tc := range cases {
		got, err := c.Overshoots(context.Background(), msgs, Plan{tierCurrentTaskSteps, tc.indices}, tc.current, tc.target, fc1)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.skip {
			t.Errorf("%s: skip = %v, want %v", tc.name, got, tc.skip)
		}
	}
}

// TestSummarySizesFit: the learned estimate is the prior without evidence,
// the mean of similar rounds, and a non-negative line through rounds of
// different sizes; memory is bounded to the newest rounds.
func TestSummarySizesFit(t *testing.T) {
	t.Parallel()
	line := func(in int) int { return 64 + in/8 }
	tests := []struct {
		name  string
		obs   [][2]int
		input int
		want  int
		exact bool // whether the estimate must match want exactly
	}{
		{"prior", nil, 5000, 1024, true},
		{"one round: its size", [][2]int{{10000, 1314}}, 3000, 1314, true},
		{"similar rounds: their mean", [][2]int{{10000, 1300}, {11000, 1400}}, 20000, 1350, true},
		{"a line through spread rounds", [][2]int{{2000, line(2000)}, {8000, line(8000)}, {16000, line(16000)}}, 40000, line(40000), false},
		{"no negative fixed part", [][2]int{{1000, 100}, {4000, 700}}, 0, 1, true},
	}
	for _, tc := range tests {
		var s sizes
		for _, o := range tc.obs {
			s.observe(o[0], o[1])
		}
		got, observed := s.estimate(1024, tc.input)
		if observed != (len(tc.obs) > 0) {
			t.Errorf("%s: observed = %v", tc.name, observed)
		}
		if tc.exact && got != tc.want || !tc.exact && (got < tc.want-2 || got > tc.want+2) {
			t.Errorf("%s: estimate(%d) = %d, want %d", tc.name, tc.input, got, tc.want)
		}
	}
	var s sizes
	for i := range 3 * sizeMemory {
		s.observe(1000+i, 10) // old rounds: tiny summaries
	}
	for range sizeMemory {
		s.observe(1000, 500)
	}
	if got, _ := s.estimate(1, 1000); got != 500 {
		t.Errorf("after %d new rounds the estimate is %d, want only the newest (500)", sizeMemory, got)
	}
}
