package compaction

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// prConversation is a tiny earlier exchange, then a task of steps with
// bulky results: the shape of issue 13's stuck case.
func prConversation(steps int) []*schema.Message {
	msgs := []*schema.Message{sys("rules"), user("What happened so far?"), asst("Nothing yet."), user("fix the store")}
	for i := range steps {
		id := string(rune('a' + i))
		msgs = append(msgs, call(id), result(id, rep("result line of the store package ", 6)))
	}
	return msgs
}

// TestRefusedRoundDoesNotStopLaterTiers: a round whose summary is not
// smaller refuses only its own messages; the same compaction goes on to the
// next tier, and the reference's stop-at-first-failure still holds for
// summarizer errors.
func TestRefusedRoundDoesNotStopLaterTiers(t *testing.T) {
	t.Parallel()
	long := rep("a summary much longer than the exchange it replaces ", 4)
	tests := []struct {
		name      string
		script    []scStep
		wantTiers []string
		wantOK    bool // a compacted conversation comes back
	}{
		{"not smaller, then the task's steps", []scStep{{text: long}, {text: "steps done"}},
			[]string{TierHistoricalTurns, TierCurrentTaskSteps}, true},
		{"summarizer error stops", []scStep{{err: errors.New("provider down")}},
			[]string{TierHistoricalTurns}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, rounds := scNew(t, scScript(t, tc.script...), scConfig{approx: scInt(10)})
			in := prConversation(4)
			target := count(fc1, in...) / 2
			out, err := c.Compact(context.Background(), in, target, fc1)
			if err != nil {
				t.Fatal(err)
			}
			if (out != nil) != tc.wantOK {
				t.Fatalf("compacted = %v, want %v", out != nil, tc.wantOK)
			}
			var tiers []string
			for _, r := range *rounds {
				tiers = append(tiers, r.Tier)
			}
			if !slices.Equal(tiers, tc.wantTiers) {
				t.Errorf("rounds %v, want %v", tiers, tc.wantTiers)
			}
			if out != nil && count(fc1, out...) > target {
				t.Errorf("result %d tokens, target %d", count(fc1, out...), target)
			}
		})
	}
}

// TestObservedSummariesSkipRoundsThatCannotPay: once the compactor has seen
// that a summary of a small exchange is larger than the exchange, it plans
// no such round again and goes to the task's steps at once; before any
// evidence the configured estimate is no reason to skip.
func TestObservedSummariesSkipRoundsThatCannotPay(t *testing.T) {
	t.Parallel()
	long := rep("a summary much longer than the exchange it replaces ", 4)
	c, _, _ := scNew(t, scFixed(t, long), scConfig{approx: scInt(10)})
	in := prConversation(4)
	target := count(fc1, in...) / 2
	p, err := c.Plan(context.Background(), in, target, fc1)
	if err != nil || p.Tier != TierHistoricalTurns {
		t.Fatalf("before any evidence: plan %+v, %v; want the historical turn", p, err)
	}
	// One round on the small exchange alone teaches the summary size.
	c.planner.Observe(count(fc1, in[1:3]...), count(fc1, NewSummaryMessage(long, 2)))
	p, err = c.Plan(context.Background(), in, target, fc1)
	if err != nil || p.Tier != TierCurrentTaskSteps {
		t.Fatalf("after evidence: plan %+v, %v; want current-task steps", p, err)
	}
}

// TestPlanKeepsOlderStepsBeforeALargeOne: when a large step is what reaches
// the target, only the oldest steps still needed go with it; the ones in
// between stay verbatim.
func TestPlanKeepsOlderStepsBeforeALargeOne(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("task"),
		call("s1"), result("s1", rep("one ", 30)),
		call("s2"), result("s2", rep("two ", 30)),
		call("s3"), result("s3", rep("three ", 20)),
		call("s4"), result("s4", rep("a very large result ", 60)),
		call("s5"), result("s5", "newest"),
	}
	c, _, _ := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(10)})
	// Room for everything but s1, s4 and a 10-token summary.
	rest := slices.Concat(msgs[:2], msgs[4:8], msgs[10:])
	target := count(fc1, rest...) + 10
	p, err := c.Plan(context.Background(), msgs, target, fc1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 3, 8, 9}; p.Tier != TierCurrentTaskSteps || !slices.Equal(p.Indices, want) {
		t.Errorf("plan %+v, want %s %v (s1 and s4; s2 and s3 stay)", p, TierCurrentTaskSteps, want)
	}
}

// TestPlanFoldsHistorySummaryIntoShortTurns: when every historical turn is
// not enough, the history's summary goes into the same round once summary
// sizes are known, instead of a second round folding it with the new one.
// A fresh compactor plans as the reference does (case C5).
func TestPlanFoldsHistorySummaryIntoShortTurns(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), summary(rep("older history ", 20), 4),
		user("previous task"), asst(rep("previous answer ", 20)),
		user("current task"), call("c1"), result("c1", "r"),
	}
	target := count(fc1, msgs[0], msgs[4], msgs[5], msgs[6]) + 20
	tests := []struct {
		name     string
		evidence bool
		want     []int
	}{
		{"fresh: the turn alone", false, []int{2, 3}},
		{"sizes known: the turn and the summary", true, []int{1, 2, 3}},
	}
	for _, tc := range tests {
		c, _, _ := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(20)})
		if tc.evidence {
			c.planner.Observe(400, 20)
		}
		p, err := c.Plan(context.Background(), msgs, target, fc1)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tier != TierHistoricalTurns || !slices.Equal(p.Indices, tc.want) {
			t.Errorf("%s: plan %+v, want %s %v", tc.name, p, TierHistoricalTurns, tc.want)
		}
	}
}

// TestPlanDefersFoldWhileStepsSuffice: with summary sizes known, two history
// summaries are not folded while the current task's steps alone reach the
// target; a fresh compactor folds first, as the reference's tier order says.
// The newer steps hold more than a third of the target, so the step that
// suffices lies before the ones spared (the planner's recentShare).
func TestPlanDefersFoldWhileStepsSuffice(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), summary(rep("first history ", 20), 4), summary(rep("second history ", 20), 4),
		user("current task"),
		call("c1"), result("c1", rep("first result ", 60)),
		call("c2"), result("c2", rep("newer result ", 40)),
		call("c3"), result("c3", rep("newest result ", 40)),
	}
	target := count(fc1, slices.Concat(msgs[:4], msgs[6:])...) + 40
	tests := []struct {
		name     string
		evidence bool
		wantTier string
	}{
		{"fresh: tier order", false, TierHistoricalSummaries},
		{"sizes known: the steps", true, TierCurrentTaskSteps},
	}
	for _, tc := range tests {
		c, _, _ := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(20)})
		if tc.evidence {
			c.planner.Observe(400, 20)
		}
		p, err := c.Plan(context.Background(), msgs, target, fc1)
		if err != nil || p.Tier != tc.wantTier {
			t.Errorf("%s: plan %+v, %v; want tier %s", tc.name, p, err, tc.wantTier)
		}
	}
}

// TestCompactStopsRatherThanOvershoot: after a round leaves the conversation
// a little above the target, a follow-up round whose only choice is a large
// step, which would land far further below the target, is not made: that
// step stays verbatim.
func TestCompactStopsRatherThanOvershoot(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user(rep("question ", 30)), asst(rep("answer ", 30)),
		user("task"), call("big"), result("big", rep("x", 4000)), call("n"), result("n", "ok")}
	c, _, rounds := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(10)})
	// Above the target after the first round by twice what planning.CloseEnough
	// accepts, so only the overshoot check can stop the compaction there,
	// and far less than the big step would free. (A fixed 300 tokens was
	// more than 5 % but within 1/12: the test passed with the check gone.)
	first := count(fc1, msgs...) - count(fc1, msgs[1], msgs[2]) + count(fc1, summary("s", 2))
	target := first - 2*first/planning.CloseEnough
	out, err := c.Compact(context.Background(), msgs, target, fc1)
	if err != nil || out == nil {
		t.Fatalf("Compact = %v, %v", out, err)
	}
	if len(*rounds) != 1 || (*rounds)[0].Tier != TierHistoricalTurns {
		t.Errorf("rounds %+v, want only the historical turn", scRounds(*rounds))
	}
	if !slices.Contains(out, msgs[5]) {
		t.Error("the large step was summarized to close a small gap")
	}
}
