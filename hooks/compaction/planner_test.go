package compaction

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// plNew builds a compactor for planning only: its model fails the test if
// it is ever called.
func plNew(t testing.TB, minKeep, approx int) *SummarizationCompactor {
	t.Helper()
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
		ChatModel: &scModel{t: t}, MinKeepSteps: &minKeep, ApproximateSummaryTokens: &approx,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// plNotAdditive hides the AdditiveCounter methods of c so the planner must
// recount remainders from scratch.
func plNotAdditive(c TokenCounter) TokenCounter {
	return TokenCounterFunc(func(ctx context.Context, m []*schema.Message, tools []*schema.ToolInfo) (int, error) {
		return c.Count(ctx, m, tools)
	})
}

// TestPlanReference ports P1-P8 of reference A.10 (counter FC1). Targets that
// the reference derives from the size of the messages left over are derived
// the same way here, so they hold for Go's rendering without copying numbers.
func TestPlanReference(t *testing.T) {
	t.Parallel()
	p1 := []*schema.Message{sys("rules"), user(rep("oldest question ", 30)), asst(rep("oldest answer ", 30)),
		user("recent question"), asst("recent answer"), user("current task"), asst("current step")}
	p4 := []*schema.Message{sys("rules"), summary(rep("first history ", 20), 1), summary(rep("second history ", 20), 1),
		summary(rep("third history ", 20), 1), user("current task")}
	p6 := []*schema.Message{sys("rules"), user("current task"), summary(rep("first step summary ", 20), 1),
		summary(rep("second step summary ", 20), 1), summary(rep("third step summary ", 20), 1),
		call("new"), result("new", "new result")}

	cases := []struct {
		name     string
		messages []*schema.Message
		minKeep  int
		approx   int
		target   int
		want     Plan
	}{
		{"P1 stops after the first turn", p1, 1, 100,
			count(fc1, p1[0], p1[3], p1[4], p1[5], p1[6]) + 100,
			Plan{TierHistoricalTurns, []int{1, 2}}},
		{"P2 historical turns beat an eligible step", []*schema.Message{sys("rules"), user(rep("old question ", 40)),
			asst(rep("old answer ", 40)), user("current task"), call("first"), result("first", rep("first result ", 12)),
			call("newest"), result("newest", rep("newest result ", 12))}, 1, 1, 1,
			Plan{TierHistoricalTurns, []int{1, 2}}},
		{"P3 a summary inside a turn travels with it", []*schema.Message{sys("rules"), user("past task"),
			summary("early steps", 1), asst("late step"), user("current task")}, 1, 1, 1,
			Plan{TierHistoricalTurns, []int{1, 2, 3}}},
		{"P4 at least two historical summaries", p4, 1, 1,
			count(fc1, p4[0], p4[2], p4[3], p4[4]) + 1,
			Plan{TierHistoricalSummaries, []int{1, 2}}},
		{"P5 steps before task summaries", []*schema.Message{sys("rules"), user("current task"),
			summary(rep("first step summary ", 20), 1), summary(rep("second step summary ", 20), 1),
			call("first"), result("first", rep("first result ", 12)), call("newest"), result("newest", rep("newest result ", 12))},
			1, 1, 1, Plan{TierCurrentTaskSteps, []int{4, 5}}},
		{"P6 task summaries until the target is met", p6, 1, 1,
			count(fc1, p6[0], p6[1], p6[4], p6[5], p6[6]) + 1,
			Plan{TierCurrentTaskSummaries, []int{2, 3}}},
		{"P7 min keep 0", fresh(), 0, 1, 1, Plan{TierCurrentTaskSteps, []int{2, 3, 4, 5}}},
		{"P7 min keep 1", fresh(), 1, 1, 1, Plan{TierCurrentTaskSteps, []int{2, 3}}},
		{"P7 min keep 2", fresh(), 2, 1, 1, Plan{}},
		{"P7 min keep 20", fresh(), 20, 1, 1, Plan{}},
		{"P8 the floor", []*schema.Message{sys("rules"), summary(rep("all history ", 20), 1), user("current task"),
			summary(rep("all earlier steps ", 20), 1), call("new"), result("new", rep("new result ", 20))}, 1, 1, 1, Plan{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := cloneAll(tc.messages)
			got, err := plNew(t, tc.minKeep, tc.approx).Plan(context.Background(), tc.messages, tc.target, fc1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan = %+v, want %+v", got, tc.want)
			}
			if !reflect.DeepEqual(tc.messages, before) {
				t.Error("planning changed the messages")
			}
		})
	}
}

// TestPlanReferenceArithmetic pins the P1, P4 and P6 targets to the numbers
// the reference measured: Go renders these messages exactly as Python does.
func TestPlanReferenceArithmetic(t *testing.T) {
	t.Parallel()
	p1 := []*schema.Message{sys("rules"), user("recent question"), asst("recent answer"), user("current task"), asst("current step")}
	if got := count(fc1, p1...) + 100; got != 208 {
		t.Errorf("P1 target = %d, want 208", got)
	}
	p4 := []*schema.Message{sys("rules"), summary(rep("second history ", 20), 1), summary(rep("third history ", 20), 1), user("current task")}
	if got := count(fc1, p4...) + 1; got != 725 {
		t.Errorf("P4 target = %d, want 725", got)
	}
	p6 := []*schema.Message{sys("rules"), user("current task"), summary(rep("third step summary ", 20), 1), call("new"), result("new", "new result")}
	if got := count(fc1, p6...) + 1; got != 531 {
		t.Errorf("P6 target = %d, want 531", got)
	}
}

// TestPlanEdgeCases covers the planning side of reference section F and a few
// boundaries of A.3-A.4 (counter FC1, approx 1, target 1 unless stated).
func TestPlanEdgeCases(t *testing.T) {
	t.Parallel()
	badMarker := user("typed by a tool")
	badMarker.Extra = map[string]any{MetaKey: "not a map"}
	typedTags := user("<conversation_summary>\nI typed this\n</conversation_summary>")

	cases := []struct {
		name     string
		messages []*schema.Message
		minKeep  int
		approx   int
		want     Plan
	}{
		{"F1 orphan result in the task belongs to no step",
			[]*schema.Message{sys("s"), user("task"), result("x", "orphan"), call("c1"), result("c1", "r"), asst("done")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{3, 4}}},
		{"F1 orphan result in history travels with its turn",
			[]*schema.Message{sys("s"), user("old"), result("x", "orphan"), asst("a"), user("task")}, 1, 1,
			Plan{TierHistoricalTurns, []int{1, 2, 3}}},
		{"F2 trailing call without results is a step",
			[]*schema.Message{sys("s"), user("task"), call("c1"), result("c1", "r"), call("c2")}, 0, 1,
			Plan{TierCurrentTaskSteps, []int{2, 3, 4}}},
		{"F2 partial parallel results stay with their call",
			[]*schema.Message{sys("s"), user("task"), call("c1"), result("c1", "r"), call("a", "b"), result("a", "ra")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{2, 3}}},
		{"F3 empty conversation", nil, 1, 1, Plan{}},
		{"F4 no real user: everything after the system block is the task",
			[]*schema.Message{sys("s"), call("c1"), result("c1", "r"), call("c2"), result("c2", "r"), asst("done")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{1, 2, 3, 4}}},
		{"F4 all system", []*schema.Message{sys("a"), sys("b")}, 0, 1, Plan{}},
		{"F5 notes before the first turn and in the task are never taken",
			[]*schema.Message{sys("s"), note("sliding_window", "n1"), user("old"), asst("a"), user("task"),
				note("tool_result_pruning", "n2"), call("c1"), result("c1", "r"), asst("done")}, 1, 1,
			Plan{TierHistoricalTurns, []int{2, 3}}},
		{"F5 notes alone are the floor",
			[]*schema.Message{sys("s"), note("sliding_window", "n1"), user("task"), note("sliding_window", "n2"), asst("done")}, 1, 1,
			Plan{}},
		{"F6 a non-map marker is neither anchor nor summary",
			[]*schema.Message{sys("s"), user("task"), call("c1"), result("c1", "r"), badMarker, asst("done")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{2, 3}}},
		{"F6 a non-map marker does not open a turn",
			[]*schema.Message{sys("s"), badMarker, asst("a"), user("task")}, 1, 1, Plan{}},
		{"typed summary tags make a real user, and so the task anchor",
			[]*schema.Message{sys("s"), user("old"), asst("a"), typedTags}, 1, 1,
			Plan{TierHistoricalTurns, []int{1, 2}}},
		{"F7 tier 2 skips a note between summaries",
			[]*schema.Message{sys("s"), summary("one", 1), note("sliding_window", "n"), summary("two", 1), user("task")}, 1, 1,
			Plan{TierHistoricalSummaries, []int{1, 3}}},
		{"F7 tier 3 spans a skipped note",
			[]*schema.Message{sys("s"), user("task"), call("c1"), result("c1", "r"), note("sliding_window", "n"),
				call("c2"), result("c2", "r"), asst("last")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{2, 3, 5, 6}}},
		{"F8 a mid-task system message breaks a step and stays",
			[]*schema.Message{sys("s"), user("task"), call("c1"), sys("mid"), result("c1", "r"), asst("last")}, 1, 1,
			// The reference would take [2] alone and orphan the result at 4;
			// design.md's no-orphans rule wins, so the result goes with its call.
			Plan{TierCurrentTaskSteps, []int{2, 4}}},
		{"a result across the task anchor goes with its turn",
			[]*schema.Message{sys("s"), user("old"), call("c1"), user("task"), result("c1", "r"), asst("done")}, 1, 1,
			Plan{TierHistoricalTurns, []int{1, 2, 4}}},
		{"a step whose result sits in a kept step is pinned",
			[]*schema.Message{sys("s"), user("task"), call("c1"), call("c2"), result("c2", "r2"), result("c1", "r1")}, 1, 1,
			Plan{}},
		{"steps sharing a call id merge into one group",
			[]*schema.Message{sys("s"), user("task"), call("c1"), note("sliding_window", "n"), call("c2"), result("c2", "r2"),
				result("c1", "r1"), asst("last")}, 1, 1,
			Plan{TierCurrentTaskSteps, []int{2, 4, 5, 6}}},
		{"a turn and a step sharing a pair are both pinned",
			[]*schema.Message{sys("s"), user("old"), call("c1"), user("task"), call("c2"), result("c2", "r2"), result("c1", "r1"), asst("x")}, 1, 1,
			Plan{}},
		{"a marked system message ends the system block",
			[]*schema.Message{sys("s"), func() *schema.Message { m := sys("marked"); m.Extra = summary("x", 1).Extra; return m }(),
				summary("two", 1), user("task")}, 1, 1,
			Plan{TierHistoricalSummaries, []int{1, 2}}},
		{"F18 a summary estimate above the target takes every turn",
			[]*schema.Message{sys("s"), user("q1"), asst("a1"), user("q2"), asst("a2"), user("q3"), asst("a3"), user("task")}, 1, 1 << 20,
			Plan{TierHistoricalTurns, []int{1, 2, 3, 4, 5, 6}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, counter := range []TokenCounter{fc1, DefaultCounter(), plNotAdditive(DefaultCounter())} {
				got, err := plNew(t, tc.minKeep, tc.approx).Plan(context.Background(), tc.messages, 1, counter)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%T: plan = %+v, want %+v", counter, got, tc.want)
				}
			}
		})
	}
}

// TestPlanStopsAtTheTarget checks the stopping rule of A.4 on both sides of
// its boundary: the remainder plus the estimate must be <= target.
func TestPlanStopsAtTheTarget(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("s"), user("task"), call("c1"), result("c1", rep("x", 50)),
		call("c2"), result("c2", rep("y", 50)), asst("last")}
	afterFirst := count(fc1, msgs[0], msgs[1], msgs[4], msgs[5], msgs[6])
	c := plNew(t, 1, 7)
	for _, tc := range []struct {
		target int
		want   []int
	}{
		{afterFirst + 7, []int{2, 3}},
		{afterFirst + 6, []int{2, 3, 4, 5}},
	} {
		got, err := c.Plan(context.Background(), msgs, tc.target, fc1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Indices, tc.want) {
			t.Errorf("target %d: plan %v, want %v", tc.target, got.Indices, tc.want)
		}
	}
}

// TestPlanCounterError shows that a failing counter fails planning.
func TestPlanCounterError(t *testing.T) {
	t.Parallel()
	boom := fmt.Errorf("tokenizer gone")
	bad := TokenCounterFunc(func(context.Context, []*schema.Message, []*schema.ToolInfo) (int, error) { return 0, boom })
	_, err := plNew(t, 1, 1).Plan(context.Background(), fresh(), 1, bad)
	if err == nil || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
}

// plCountingCounter counts how many times each path asks for a count and how
// many messages it measured, to prove the O(n) claim without timing anything.
type plCountingCounter struct {
	inner    *ApproximateTokenCounter
	counts   int
	measured int
}

func (p *plCountingCounter) Count(ctx context.Context, m []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	p.counts++
	p.measured += len(m)
	return p.inner.Count(ctx, m, tools)
}
func (p *plCountingCounter) MessageCost(m *schema.Message) Cost {
	p.measured++
	return p.inner.MessageCost(m)
}
func (p *plCountingCounter) Tokens(sum Cost, n int) int { return p.inner.Tokens(sum, n) }

func TestPlanAdditiveIsLinear(t *testing.T) {
	t.Parallel()
	msgs := plAgentConversation(rand.New(rand.NewPCG(7, 7)), 1000)
	counter := &plCountingCounter{inner: DefaultCounter()}
	if _, err := plNew(t, 1, 1).Plan(context.Background(), msgs, 1, counter); err != nil {
		t.Fatal(err)
	}
	if counter.counts != 0 || counter.measured != len(msgs) {
		t.Errorf("additive planning made %d counts measuring %d messages, want 0 counts and %d messages",
			counter.counts, counter.measured, len(msgs))
	}
}

// TestPlanAdditiveMatchesRecount runs the planner on random conversations and
// targets with an AdditiveCounter and with the same counter hidden behind a
// TokenCounterFunc: the selections must be identical.
func TestPlanAdditiveMatchesRecount(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2026, 12))
	img, _ := NewApproximateTokenCounter(&ApproximateConfig{CharsPerToken: 3.3, TokensPerImage: 50})
	for i := range 300 {
		msgs := propConversation(r)
		total := count(img, msgs...)
		target := r.IntN(total + 2)
		c := plNew(t, r.IntN(3), 1+r.IntN(40))
		fast, err := c.Plan(context.Background(), msgs, target, img)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := c.Plan(context.Background(), msgs, target, plNotAdditive(img))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("conversation %d, target %d: additive plan %+v, recount plan %+v", i, target, fast, slow)
		}
	}
}

// plAgentConversation is one task with n messages of agent steps, for the
// benchmark: a long-running task is where planning cost matters.
func plAgentConversation(r *rand.Rand, n int) []*schema.Message {
	msgs := []*schema.Message{sys("You are a careful agent."), user("Work through the backlog.")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, call(id))
		if len(msgs) < n {
			msgs = append(msgs, result(id, rep("data ", 5+r.IntN(60))))
		}
	}
	return msgs
}

// BenchmarkPlan measures one planning round against an additive counter and
// a recounting one. The recounting path is O(n) per candidate by design, so
// its 10,000-message case is left out to keep `make bench` short.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		msgs := plAgentConversation(rand.New(rand.NewPCG(1, uint64(n))), n)
		c := plNew(b, 1, 1024)
		counters := []struct {
			name    string
			counter TokenCounter
		}{{"additive", DefaultCounter()}, {"recount", plNotAdditive(DefaultCounter())}}
		for _, cc := range counters {
			if cc.name == "recount" && n > 1000 {
				continue
			}
			// Half the conversation's size makes the planner walk about half the steps.
			target := count(cc.counter, msgs...) / 2
			b.Run(fmt.Sprintf("%s/%d", cc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Plan(context.Background(), msgs, target, cc.counter); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

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
				c.planner.Observe(1000, 10)
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
