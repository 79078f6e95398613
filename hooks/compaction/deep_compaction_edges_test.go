package compaction

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// The edges of a deep compaction: a floor larger than the conversation
// changes nothing (the compaction is the usual one), a conversation with
// nothing outside its floor and newest step is left alone, and MinKeepSteps
// spares steps the floor would not.
func TestDeepCompactionEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		msgs    func() []*schema.Message
		keep    func([]*schema.Message) int
		minKeep *int
		// none: no result; stays: the newest messages that stay verbatim
		// (the rest but the system prompt and the request is summarized);
		// usual: the result is the one without the ask.
		none  bool
		stays int
		usual bool
	}{
		{name: "floor larger than the conversation", msgs: func() []*schema.Message { return deepConversation(2, 10, 300) },
			keep: func(m []*schema.Message) int { return count(fc1, m...) + 1000 }, usual: true},
		{name: "one huge request", msgs: func() []*schema.Message { return []*schema.Message{sys("rules"), user(rep("q", 20000))} },
			keep: func([]*schema.Message) int { return 100 }, none: true},
		{name: "one huge reply", msgs: func() []*schema.Message {
			return []*schema.Message{sys("rules"), user("current request"), asst(rep("a", 20000))}
		}, keep: func([]*schema.Message) int { return 100 }, none: true},
		{name: "MinKeepSteps 0, floor inside the newest result", msgs: func() []*schema.Message { return deepConversation(0, 20, 300) },
			keep: func(m []*schema.Message) int { return 10 }, minKeep: scInt(0), stays: 2},
		{name: "MinKeepSteps large, one task", msgs: func() []*schema.Message { return deepConversation(0, 20, 300) },
			keep: func(m []*schema.Message) int { return 10 }, minKeep: scInt(100), none: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := tc.msgs()
			before := cloneAll(msgs)
			keep := tc.keep(msgs)
			target := count(fc1, msgs...) / 2
			c, _, rounds := scNew(t, scFixed(t, "short summary"), scConfig{minKeep: tc.minKeep})
			out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: math.MaxInt}), msgs, target, fc1)
			if err != nil {
				t.Fatal(err)
			}
			// A floor the conversation cannot hold binds nothing.
			checkDeepResult(t, msgs, before, out, keep, fc1)
			switch {
			case tc.none:
				if out != nil || len(*rounds) != 0 {
					t.Errorf("%d messages after %d rounds, want no result and no round", len(out), len(*rounds))
				}
			case tc.usual:
				u, _, urounds := scNew(t, scFixed(t, "short summary"), scConfig{minKeep: tc.minKeep})
				usual, err := u.Compact(context.Background(), msgs, target, fc1)
				if err != nil || usual == nil {
					t.Fatalf("usual compaction: %v", err)
				}
				if !reflect.DeepEqual(scRounds(*rounds), scRounds(*urounds)) || !slices.Equal(out[len(out)-verbatimTail(msgs, out):], usual[len(usual)-verbatimTail(msgs, usual):]) {
					t.Errorf("rounds %v, the usual compaction's %v", scRounds(*rounds), scRounds(*urounds))
				}
			default:
				if out == nil {
					t.Fatal("no result")
				}
				if tail := verbatimTail(msgs, out); tail != tc.stays {
					t.Errorf("the newest %d messages stayed, want %d", tail, tc.stays)
				}
				for i, m := range msgs[2 : len(msgs)-tc.stays] {
					if slices.Contains(out, m) {
						t.Errorf("message %d, before the floor, stayed", i+2)
					}
				}
			}
		})
	}
}

// With MinKeepSteps spanning the whole task, a deep compaction still
// summarizes the earlier turns before the floor, and no step of the task.
func TestDeepCompactionMinKeepStepsSparesTheTask(t *testing.T) {
	t.Parallel()
	msgs := deepConversation(3, 5, 300)
	before := cloneAll(msgs)
	task := shape.RegionsOf(msgs).Task
	c, _, _ := scNew(t, scFixed(t, "short summary"), scConfig{minKeep: scInt(100)})
	out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: 10, Limit: math.MaxInt}), msgs, count(fc1, msgs...)/2, fc1)
	if err != nil || out == nil {
		t.Fatalf("deep compaction: %v, %d messages", err, len(out))
	}
	checkDeepResult(t, msgs, before, out, 10, fc1)
	for i, m := range msgs {
		switch in := slices.Contains(out, m); {
		case i > task && !in:
			t.Errorf("step message %d of the current task was summarized; MinKeepSteps spares it", i)
		case i > 0 && i < task && in:
			t.Errorf("message %d of an earlier turn stayed", i)
		}
	}
}
