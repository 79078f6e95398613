package compaction

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// checkDeepResult checks what every deep compaction of msgs into out must
// keep: no tool call parted from its results that was not parted already,
// the leading system messages and the current request verbatim and in
// place, the caller's messages that stay in their order, the newest ones
// holding at least keep tokens together, and the caller's messages
// unmutated (before is their deep copy).
func checkDeepResult(t *testing.T, msgs, before, out []*schema.Message, keep int, counter TokenCounter) {
	t.Helper()
	for i := range msgs {
		if !reflect.DeepEqual(msgs[i], before[i]) {
			t.Fatalf("message %d of the caller's conversation was mutated", i)
		}
	}
	if out == nil {
		return
	}
	if err := shape.NewFaults(msgs, out); err != nil {
		t.Errorf("pairing: %v", err)
	}
	r := shape.RegionsOf(msgs)
	for i := range r.SystemEnd {
		if i >= len(out) || out[i] != msgs[i] {
			t.Errorf("system message %d is not verbatim at its place", i)
		}
	}
	// The caller's messages that stay keep their order, and the current
	// request stays among them.
	last := -1
	for k, m := range out {
		i := slices.Index(msgs, m)
		if i < 0 {
			continue
		}
		if i <= last {
			t.Errorf("message %d of the result is the caller's message %d, after %d: order changed", k, i, last)
		}
		last = i
	}
	if r.Task >= 0 && !slices.Contains(out, msgs[r.Task]) {
		t.Errorf("the current request (message %d) was not kept verbatim", r.Task)
	}
	if r.Task >= 0 {
		// Nothing from before the request ends up after it but a summary.
		at := slices.Index(out, msgs[r.Task])
		for _, m := range out[at+1:] {
			if i := slices.Index(msgs, m); i >= 0 && i < r.Task {
				t.Errorf("message %d, older than the request, stands after it", i)
			}
		}
	}
	tail := verbatimTail(msgs, out)
	if whole := count(counter, msgs...); whole >= keep {
		if held := count(counter, msgs[len(msgs)-tail:]...); held < keep {
			t.Errorf("the newest %d messages hold %d tokens, below the floor of %d", tail, held, keep)
		}
	}
}

// A deep compaction parts no tool call from its results, wherever the
// floor's boundary falls, and keeps the system prompt, the current request
// and earlier summaries where they belong.
func TestDeepCompactionKeepsPairsAndLandmarks(t *testing.T) {
	t.Parallel()
	// boundaryAt returns the floor that starts exactly at message i of msgs
	// (the newest messages from i hold it, from i+1 they do not).
	boundaryAt := func(msgs []*schema.Message, i int) int { return count(fc1, msgs[i:]...) }
	cases := []struct {
		name  string
		msgs  func() []*schema.Message
		keep  func([]*schema.Message) int
		stays []int // indices of msgs that must stay verbatim; negative: from the end
		gone  []int // indices of msgs that must be summarized; negative: from the end
	}{
		{
			name: "boundary between a call and its result",
			msgs: func() []*schema.Message { return deepConversation(0, 30, 200) },
			// Message len-3 is the result of the call at len-4.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, len(m)-3) },
			stays: []int{-3, -4},
			gone:  []int{2, 3, -5, -6},
		},
		{
			name: "boundary inside parallel results",
			msgs: func() []*schema.Message {
				m := deepConversation(0, 20, 200)
				m = append(m, call("a", "b", "c"), result("a", rep("A", 300)), result("b", rep("B", 300)), result("c", rep("C", 300)))
				return append(m, call("z"), result("z", "last"))
			},
			// From result b on: a's result and the call must stay too.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, 44) },
			stays: []int{42, 43, 44, 45},
			gone:  []int{2, 41},
		},
		{
			name: "results of one call split by another message",
			msgs: func() []*schema.Message {
				m := deepConversation(0, 20, 200)
				m = append(m, call("a", "b"), result("a", rep("A", 300)), note(StrategyToolResultPruning, "a note"), result("b", rep("B", 300)))
				return append(m, call("z"), result("z", "last"))
			},
			// From result b on: the call, result a and the note stay.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, 45) },
			stays: []int{42, 43, 44, 45},
			gone:  []int{2, 41},
		},
		{
			name: "split results with the boundary before the split",
			msgs: func() []*schema.Message {
				m := deepConversation(0, 20, 200)
				m = append(m, call("a", "b"), result("a", rep("A", 300)), note(StrategyToolResultPruning, "a note"), result("b", rep("B", 300)))
				return append(m, call("z"), result("z", "last"))
			},
			// The floor starts at the note, after result a: a's step has a
			// result (b) inside the floor, so it stays whole.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, 44) },
			stays: []int{42, 43, 44, 45},
			gone:  []int{2, 41},
		},
		{
			name: "orphan tool results in the input",
			msgs: func() []*schema.Message {
				m := deepConversation(0, 20, 200)
				m = slices.Insert(m, 10, result("ghost-old", rep("g", 200)))
				return append(m, result("ghost-new", "late"), call("z"), result("z", rep("z", 400)))
			},
			keep:  func(m []*schema.Message) int { return boundaryAt(m, len(m)-3) },
			stays: []int{43, 44, 45},
			gone:  []int{2, 11},
		},
		{
			name: "earlier summaries outside and inside the floor",
			msgs: func() []*schema.Message {
				m := []*schema.Message{sys("rules"), summary(rep("old facts ", 40), 12), user("current request")}
				for i := range 20 {
					id := fmt.Sprintf("p%d", i)
					m = append(m, call(id), result(id, rep("r", 200)))
					if i == 5 {
						m = append(m, summary(rep("mid facts ", 40), 8))
					}
				}
				m = append(m, summary(rep("recent facts ", 10), 4))
				return append(m, call("z"), result("z", rep("z", 400)))
			},
			keep: func(m []*schema.Message) int { return boundaryAt(m, len(m)-7) },
			// The lone summary before the request is no group of the
			// planner (a fold needs two); the one among the old steps is
			// folded into the new summary.
			stays: []int{2, -7, -3, -2, -1},
			gone:  []int{3, 15, -8},
		},
		{
			name: "floor reaching into earlier turns",
			msgs: func() []*schema.Message { return deepConversation(6, 3, 300) },
			// Everything of the current task and the last two earlier turns.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, 1+8*4) },
			stays: []int{1 + 8*4, 1 + 8*5, 1 + 8*6},
			gone:  []int{1, 2, 1 + 8*3},
		},
		{
			name: "boundary between a call and its result in an earlier turn",
			msgs: func() []*schema.Message { return deepConversation(6, 3, 300) },
			// Turn 4 is its request at 33, steps at 34-35, 36-37 and
			// 38-39, and its reply at 40; the floor starts at result 37.
			keep:  func(m []*schema.Message) int { return boundaryAt(m, 37) },
			stays: []int{36, 37, 38, 40},
			gone:  []int{1, 33, 34, 35},
		},
		{
			name: "zero-length messages",
			msgs: func() []*schema.Message {
				m := []*schema.Message{sys("rules"), user("current request")}
				for i := range 30 {
					id := fmt.Sprintf("p%d", i)
					m = append(m, call(id), result(id, ""), asst(""), call(id+"x"), result(id+"x", rep("r", 100)))
				}
				return m
			},
			keep:  func(m []*schema.Message) int { return boundaryAt(m, len(m)-10) },
			stays: []int{-10, -1},
			gone:  []int{2, 3, 4},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := tc.msgs()
			before := cloneAll(msgs)
			keep := tc.keep(msgs)
			c, _, rounds := scNew(t, scFixed(t, "short summary"), scConfig{})
			out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: math.MaxInt}), msgs, count(fc1, msgs...)/2, fc1)
			if err != nil || out == nil {
				t.Fatalf("deep compaction: %v, %d messages", err, len(out))
			}
			if len(*rounds) != 1 {
				t.Errorf("%d rounds, want one", len(*rounds))
			}
			checkDeepResult(t, msgs, before, out, keep, fc1)
			at := func(i int) int {
				if i < 0 {
					return len(msgs) + i
				}
				return i
			}
			for _, i := range tc.stays {
				if i = at(i); !slices.Contains(out, msgs[i]) {
					t.Errorf("message %d (%s %q) was summarized; it must stay", i, msgs[i].Role, prefix(msgs[i].Content))
				}
			}
			for _, i := range tc.gone {
				if i = at(i); slices.Contains(out, msgs[i]) {
					t.Errorf("message %d (%s %q) stayed; it lies before the floor", i, msgs[i].Role, prefix(msgs[i].Content))
				}
			}
		})
	}
}

func prefix(s string) string { return s[:min(len(s), 20)] }
