package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// deepConversation is a system prompt and the current request followed by
// steps tool steps whose results hold size characters each; with turns > 0
// it starts with that many earlier user turns of the same steps.
func deepConversation(turns, steps, size int) []*schema.Message {
	msgs := []*schema.Message{sys("rules")}
	for t := range turns {
		msgs = append(msgs, user(fmt.Sprintf("earlier request %d", t)))
		for i := range steps {
			id := fmt.Sprintf("t%ds%d", t, i)
			msgs = append(msgs, call(id), result(id, rep("h", size)))
		}
		msgs = append(msgs, asst(fmt.Sprintf("done %d", t)))
	}
	msgs = append(msgs, user("current request"))
	for i := range steps {
		id := fmt.Sprintf("s%d", i)
		msgs = append(msgs, call(id), result(id, rep("x", size)))
	}
	return msgs
}

// A deep compaction keeps the newest messages that hold the floor verbatim,
// in one round, and summarizes everything older; the same compaction without
// the ctx stops at the target and keeps more.
func TestDeepCompactionKeepsTheFloor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		turns, steps, size int
		keep               int
	}{
		{"one long task", 0, 40, 300, 3000},
		{"floor reaching into earlier turns", 6, 3, 300, 1200},
		{"floor boundary inside a large result", 0, 12, 1500, 2000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := deepConversation(tc.turns, tc.steps, tc.size)
			before := cloneAll(msgs)
			target := count(fc1, msgs...) / 2
			c, _, rounds := scNew(t, scFixed(t, "short summary"), scConfig{})
			ctx := planning.WithDeep(context.Background(), planning.Deep{Keep: tc.keep, Limit: math.MaxInt})
			out, err := c.Compact(ctx, msgs, target, fc1)
			if err != nil || out == nil {
				t.Fatalf("deep compaction: %v, %d messages", err, len(out))
			}
			if len(*rounds) != 1 {
				t.Errorf("%d rounds, want one", len(*rounds))
			}
			// The verbatim tail: the newest messages of the result that
			// are the caller's own.
			tail := 0
			for k := 1; k <= len(out) && out[len(out)-k] == msgs[len(msgs)-k]; k++ {
				tail = k
			}
			if held := count(fc1, msgs[len(msgs)-tail:]...); held < tc.keep {
				t.Errorf("the newest %d messages hold %d tokens, below the floor of %d", tail, held, tc.keep)
			}
			// Nothing older than the floor's first message is left
			// verbatim but the system prompt and the current request.
			from := len(msgs) - tail
			for _, m := range out[:len(out)-tail] {
				if i := slices.Index(msgs, m); i >= 0 && m.Role != schema.System && m.Content != "current request" {
					t.Errorf("message %d (%s, %d chars), older than the floor at %d, was kept verbatim", i, m.Role, len(m.Content), from)
				}
			}
			// In one task the floor is held by as few steps as will do:
			// without its oldest step the tail holds less than the floor.
			// (Earlier turns are taken whole.)
			if rest := msgs[from+2:]; tc.turns == 0 && tail > 2 && count(fc1, rest...) >= tc.keep {
				t.Errorf("the tail from %d holds %d tokens without its oldest step; the floor is %d", from, count(fc1, rest...), tc.keep)
			}
			usual, _, _ := scNew(t, scFixed(t, "short summary"), scConfig{})
			shallow, err := usual.Compact(context.Background(), msgs, target, fc1)
			if err != nil || shallow == nil {
				t.Fatalf("usual compaction: %v", err)
			}
			if count(fc1, out...) >= count(fc1, shallow...) {
				t.Errorf("deep compaction left %d tokens, the usual one %d: not deeper", count(fc1, out...), count(fc1, shallow...))
			}
			checkDeepResult(t, msgs, before, out, tc.keep, fc1)
		})
	}
}

// A deep round that leaves the conversation above its limit (the floor holds
// one result too large to leave) gives way: the compaction goes on as usual
// until the target, and a deep round within the limit is the only one.
func TestDeepCompactionGivesWayAboveItsLimit(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("rules"), user("current request")}
	for i := range 8 {
		id := fmt.Sprintf("o%d", i)
		msgs = append(msgs, call(id), result(id, rep("x", 300)))
	}
	msgs = append(msgs, call("big"), result("big", rep("y", 6000)), call("n"), result("n", "newest"))
	target := 3000
	cases := []struct {
		name   string
		limit  int
		rounds int
		bigIn  bool // the big result is still in the conversation
	}{
		{"limit above what the floor leaves", 8000, 1, true},
		{"limit below it", 4000, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, rounds := scNew(t, scFixed(t, "s"), scConfig{approx: scInt(20)})
			c.planner.Observe(400, 20) // replies seen: the planner plans ahead
			out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: 2000, Limit: tc.limit}), msgs, target, fc1)
			if err != nil || out == nil {
				t.Fatalf("compaction: %v", err)
			}
			if len(*rounds) != tc.rounds {
				t.Errorf("%d rounds, want %d", len(*rounds), tc.rounds)
			}
			if got := slices.Contains(out, msgs[len(msgs)-3]); got != tc.bigIn {
				t.Errorf("big result kept: %v, want %v (%d tokens left)", got, tc.bigIn, count(fc1, out...))
			}
		})
	}
}

// deepSpy is a compactor that records the deep compaction each call's ctx
// asked for.
type deepSpy struct {
	mu    sync.Mutex
	deeps []planning.Deep
	asked []bool
}

func (s *deepSpy) Compact(ctx context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
	d, ok := planning.DeepOf(ctx)
	s.mu.Lock()
	s.deeps, s.asked = append(s.deeps, d), append(s.asked, ok)
	s.mu.Unlock()
	if len(msgs) < 6 {
		return nil, nil
	}
	return append([]*schema.Message{msgs[0], msgs[1]}, msgs[len(msgs)-2:]...), nil
}

// The hook asks for a deep compaction by default (the assumed PricesOpenAI)
// and under every preset, with a floor of 20.2 % of the window; not with
// AimAtCompactTo, nor when the floor leaves nothing deeper than CompactTo.
func TestHookAsksForDeepCompaction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		prices *Prices
		aim    bool
		to     float64
		deep   bool
	}{
		{"default prices", nil, false, 0, true},
		{"OpenAI-like", &PricesOpenAI, false, 0, true},
		{"Anthropic-like", &PricesAnthropic, false, 0, true},
		{"no caching", &PricesNoCache, false, 0, true},
		{"AimAtCompactTo", nil, true, 0, false},
		{"CompactTo below the floor", nil, false, 0.2, false},
	}
	const window = 20000
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spy := &deepSpy{}
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: spy, ContextWindow: window, CompactTo: tc.to,
				TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), Prices: tc.prices, AimAtCompactTo: tc.aim})
			if err != nil {
				t.Fatal(err)
			}
			msgs := deepConversation(0, 50, 300)
			r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs})
			if err != nil || !r.Triggered || len(spy.asked) != 1 {
				t.Fatalf("triggered %v, %d compactor calls, err %v", r.Triggered, len(spy.asked), err)
			}
			if r.Deep != tc.deep || spy.asked[0] != tc.deep {
				t.Fatalf("Report.Deep %v, ctx asked %v; want %v", r.Deep, spy.asked[0], tc.deep)
			}
			if want := (window*202 + 999) / 1000; tc.deep && spy.deeps[0].Keep != want {
				t.Errorf("floor %d tokens, want %d", spy.deeps[0].Keep, want)
			}
			if trigger, _ := h.Thresholds(); tc.deep && spy.deeps[0].Limit != int(trigger)-1-r.Overhead {
				t.Errorf("limit %d, want just below the trigger %.0f less the overhead %d", spy.deeps[0].Limit, trigger, r.Overhead)
			}
		})
	}
}

// A compaction prepared in the background keeps less of the floor in its
// snapshot: what is appended until the trigger stays verbatim behind it.
func TestPreparedDeepCompactionCountsWhatIsAppended(t *testing.T) {
	t.Parallel()
	const window = 20000
	for _, steps := range []int{30, 36} {
		t.Run(fmt.Sprint(steps, " steps"), func(t *testing.T) {
			t.Parallel()
			spy := &deepSpy{}
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: spy, ContextWindow: window, PrepareAt: 0.5,
				TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close(context.Background()) })
			msgs := deepConversation(0, steps, 300)
			est := count(fc1, msgs...)
			trigger, _ := h.Thresholds()
			if float64(est) < 0.5*window || float64(est) >= trigger {
				t.Fatalf("%d tokens, not between PrepareAt and the trigger", est)
			}
			r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs})
			if err != nil || !r.Preparing {
				t.Fatalf("preparing %v, err %v", r.Preparing, err)
			}
			if err := h.WaitPrepared(context.Background()); err != nil {
				t.Fatal(err)
			}
			spy.mu.Lock()
			defer spy.mu.Unlock()
			want := max((window*202+999)/1000-(int(trigger)-est), 0)
			if len(spy.asked) != 1 || !spy.asked[0] || spy.deeps[0].Keep != want {
				t.Errorf("%d tokens: calls %d, deep %v; want one deep call with a floor of %d (the floor less the %d tokens until the trigger)",
					est, len(spy.asked), spy.deeps, want, int(trigger)-est)
			}
		})
	}
}

// Tool-result pruning asked for a deep compaction in a Pipeline before a
// summarization stage prunes no result among the newest messages that hold
// the floor; on its own, or without the ask, it prunes them as it always
// did.
func TestPruningKeepsTheDeepFloor(t *testing.T) {
	t.Parallel()
	msgs := deepConversation(0, 20, 600)
	keep := count(fc1, msgs[len(msgs)-8:]...)
	p, err := NewToolResultPruningCompactor(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ctx  context.Context
		// floorPruned: whether a result among the newest holding keep may
		// be pruned.
		floorPruned bool
	}{
		{"deep, before a summarization stage", context.WithValue(planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: math.MaxInt}), summarizedAfterKey{}, true), false},
		{"deep, on its own", planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: math.MaxInt}), true},
		{"usual", context.Background(), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := p.Compact(tc.ctx, msgs, 0, fc1)
			if err != nil || out == nil {
				t.Fatalf("pruning: %d messages, %v", len(out), err)
			}
			pruned := 0
			for i := len(msgs) - 8; i < len(msgs); i++ {
				if out[i] != msgs[i] {
					pruned++
				}
			}
			if (pruned > 0) != tc.floorPruned {
				t.Errorf("%d of the newest 8 messages (the floor) pruned; want pruned: %v", pruned, tc.floorPruned)
			}
			if out[3] == msgs[3] {
				t.Errorf("the oldest result was not pruned")
			}
		})
	}
}
