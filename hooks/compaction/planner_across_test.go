package compaction

import (
	"context"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// Once the compactor has seen its summarizer's replies, or from the start on
// the default prior, a compaction that the history alone cannot bring to the
// target takes the history and the oldest steps in one round, instead of the
// reference's two; the summary then goes after the current request, which
// keeps its place. With ApproximateSummaryTokens set, a fresh compactor plans
// the reference's rounds.
func TestPlanAcrossTheRequest(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user(rep("old question ", 40)), asst(rep("old answer ", 40)),
		user("current task"), call("first"), result("first", rep("first result ", 12)),
		call("newest"), result("newest", rep("newest result ", 12))}
	cases := []struct {
		name         string
		defaultPrior bool // ApproximateSummaryTokens unset
		observed     bool
		want         Plan
	}{
		{"estimate set, no reply seen yet: the reference's first round", false, false, Plan{TierHistoricalTurns, []int{1, 2}}},
		{"estimate set, replies seen: history and steps in one round", false, true, Plan{TierCurrentTaskSteps, []int{1, 2, 4, 5}}},
		{"default prior, no reply seen yet: history and steps in one round", true, false, Plan{TierCurrentTaskSteps, []int{1, 2, 4, 5}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := plNew(t, 1, 1)
			if tc.defaultPrior {
				var err error
				c, err = NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: &scModel{t: t}, MinKeepSteps: new(1)})
				if err != nil {
					t.Fatal(err)
				}
			}
			if tc.observed {
				c.sizes.observe(1000, 10)
			}
			got, err := c.Plan(context.Background(), msgs, 1, fc1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A summary goes where the first message it replaces was, unless it replaces
// messages on both sides of the current request: then it follows the request.
func TestReplaceWithSummaryPlacement(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("old question"), asst("old answer"),
		user("current task"), call("first"), result("first", "r1"), call("newest"), result("newest", "r2")}
	s := summary("what happened", 4)
	cases := []struct {
		name    string
		indices []int
		want    []*schema.Message
	}{
		{"history only", []int{1, 2}, []*schema.Message{msgs[0], s, msgs[3], msgs[4], msgs[5], msgs[6], msgs[7]}},
		{"steps only", []int{4, 5}, []*schema.Message{msgs[0], msgs[1], msgs[2], msgs[3], s, msgs[6], msgs[7]}},
		{"both sides of the request", []int{1, 2, 4, 5}, []*schema.Message{msgs[0], msgs[3], s, msgs[6], msgs[7]}},
	}
	for _, tc := range cases {
		before := cloneAll(msgs)
		got := replaceWithSummary(msgs, tc.indices, s)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d messages, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: message %d is %q, want %q", tc.name, i, got[i].Content, tc.want[i].Content)
			}
		}
		if !reflect.DeepEqual(msgs, before) {
			t.Errorf("%s: the caller's messages changed", tc.name)
		}
	}
}

// Near the target, a follow-up round that is expected to close less than a
// quarter of the remaining gap is not made; far from it, or when it closes
// enough, it is.
func TestFollowUpRoundMustCloseEnoughOfTheGap(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current task"),
		call("small"), result("small", rep("tiny ", 10)),
		call("large"), result("large", rep("large result ", 200)),
		call("newest"), result("newest", "n")}
	c := plNew(t, 1, 1)
	c.sizes.observe(1000, 20) // one reply seen: a summary is expected at 20 tokens
	small, large := count(fc1, msgs[2], msgs[3]), count(fc1, msgs[4], msgs[5])
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
		got, err := c.overshoots(context.Background(), msgs, Plan{TierCurrentTaskSteps, tc.indices}, tc.current, tc.target, fc1)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.skip {
			t.Errorf("%s: skip = %v, want %v", tc.name, got, tc.skip)
		}
	}
}

// Steps left after a summary before the history's first real user message
// (a round summarized their turn's request and first steps) are planned like
// turn units; before, nothing could ever summarize them again. Steps before
// any summary stay, as in the reference (case F6).
func TestPlanStrandedSteps(t *testing.T) {
	t.Parallel()
	stranded := []*schema.Message{sys("rules"), summary(rep("old turn ", 20), 3),
		call("s1"), result("s1", rep("stranded result ", 30)), call("s2"), result("s2", rep("stranded result ", 30)),
		user("previous task"), asst("previous answer"), user("current task"), call("now"), result("now", "r")}
	unsummarized := []*schema.Message{sys("rules"), call("s1"), result("s1", rep("early result ", 30)),
		user("current task"), call("now"), result("now", "r")}
	cases := []struct {
		name     string
		messages []*schema.Message
		want     Plan
	}{
		{"after a summary", stranded, Plan{TierHistoricalTurns, []int{1, 2, 3, 4, 5, 6, 7}}},
		{"before any summary", unsummarized, Plan{}},
	}
	for _, tc := range cases {
		got, err := plNew(t, 1, 1).Plan(context.Background(), tc.messages, 1, fc1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: plan = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// An empty selection replaces nothing: the conversation comes back as it
// was, and the placement rule must not panic on it.
func TestReplaceWithSummaryEmptyIndices(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current task")}
	got := replaceWithSummary(msgs, nil, summary("s", 0))
	if len(got) != len(msgs) {
		t.Fatalf("%d messages, want the %d given", len(got), len(msgs))
	}
}
