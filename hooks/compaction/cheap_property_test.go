package compaction

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// ppConversation builds a random, provider-valid agent conversation: system
// messages, user turns, text replies, single and parallel tool calls with
// results of random size, earlier summaries, window notes and pruned results,
// and sometimes a trailing call whose results have not arrived yet.
func ppConversation(r *rand.Rand) []*schema.Message {
	var out []*schema.Message
	for range r.IntN(3) {
		out = append(out, sys(rep("rule ", 1+r.IntN(8))))
	}
	id := 0
	for range 1 + r.IntN(5) {
		switch r.IntN(8) {
		case 0:
			out = append(out, summary(rep("earlier ", 1+r.IntN(40)), 1+r.IntN(6)))
		case 1:
			out = append(out, note(StrategySlidingWindow, rep("gone ", 1+r.IntN(10))))
		}
		out = append(out, user(rep("question ", 1+r.IntN(20))))
		for range r.IntN(6) {
			if r.IntN(4) == 0 {
				out = append(out, asst(rep("thinking ", 1+r.IntN(30))))
				continue
			}
			ids := make([]string, 1+r.IntN(3))
			for k := range ids {
				id++
				ids[k] = fmt.Sprint("c", id)
			}
			out = append(out, call(ids...))
			for _, c := range ids {
				res := result(c, rep("data ", r.IntN(200)))
				if r.IntN(6) == 0 {
					res.Extra = map[string]any{MetaKey: map[string]any{"strategy": StrategyToolResultPruning, "original_tokens": 99}}
				}
				out = append(out, res)
			}
		}
	}
	if r.IntN(5) == 0 {
		out = append(out, call("in-flight"))
	}
	return out
}

// ppSnap is a cheap picture of a message for spotting mutation: its fields,
// its tool calls and its Extra as printed (fmt sorts map keys). The gob deep
// copy the table tests use is too slow for hundreds of random trials.
type ppSnap struct {
	msg   schema.Message
	calls []schema.ToolCall
	extra string
}

func ppSnapshot(msgs []*schema.Message) []ppSnap {
	out := make([]ppSnap, len(msgs))
	for i, m := range msgs {
		out[i] = ppSnap{msg: *m, calls: append([]schema.ToolCall(nil), m.ToolCalls...), extra: fmt.Sprint(m.Extra)}
	}
	return out
}

// ppPairingWithInFlight is swPairing, except that a trailing call without
// results (the model asked, the tools have not answered yet) is allowed.
func ppPairingWithInFlight(msgs []*schema.Message) error {
	if n := len(msgs); n > 0 && len(msgs[n-1].ToolCalls) > 0 {
		msgs = msgs[:n-1]
	}
	return swPairing(msgs)
}

// TestCheapCompactorsProperties runs the sliding window, pruning and their
// pipeline with random settings on random conversations and targets, and
// checks what must hold whatever they decide.
func TestCheapCompactorsProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 9))
	ctx := context.Background()
	for trial := range 400 {
		msgs := ppConversation(r)
		if err := ppPairingWithInFlight(msgs); err != nil {
			t.Fatalf("generator made an invalid conversation: %v", err)
		}
		before := ppSnapshot(msgs)
		total := count(fc4, msgs...)
		target := r.IntN(total + 1)

		keep, minTokens := r.IntN(3), r.IntN(60)
		noteText := DefaultOmissionNote
		if r.IntN(3) == 0 {
			noteText = ""
		}
		sw, err := NewSlidingWindowCompactor(ctx, &SlidingWindowConfig{MinKeepSteps: &keep, OmissionNote: &noteText})
		if err != nil {
			t.Fatal(err)
		}
		prKeep := keep + 1
		pr, err := NewToolResultPruningCompactor(ctx, &ToolResultPruningConfig{MinKeepSteps: &prKeep, MinTokens: &minTokens})
		if err != nil {
			t.Fatal(err)
		}
		pipe, _ := NewPipeline(pr, sw)
		for name, c := range map[string]Compactor{"window": sw, "pruning": pr, "pipeline": pipe} {
			got, err := c.Compact(ctx, msgs, target, fc4)
			where := fmt.Sprintf("trial %d, %s, target %d of %d", trial, name, target, total)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if !reflect.DeepEqual(ppSnapshot(msgs), before) {
				t.Fatalf("%s: input mutated", where)
			}
			if got == nil {
				continue
			}
			if after := count(fc4, got...); after >= total {
				t.Errorf("%s: not smaller (%d -> %d)", where, total, after)
			}
			if err := ppPairingWithInFlight(got); err != nil {
				t.Errorf("%s: %v\n%s", where, err, Render(got, RenderOptions{ToolCallIDs: true}))
			}
			ppCheckKept(t, where, msgs, got, name == "pruning")
		}
	}
}

// ppCheckKept checks that the system block and the current request survive
// untouched, at most one window note remains, and pruning only ever swaps
// tool results for same-call placeholders.
func ppCheckKept(t *testing.T, where string, in, out []*schema.Message, pruningOnly bool) {
	t.Helper()
	lay := shape.LayoutOf(in, isWindowNote)
	for i := range lay.SystemEnd {
		if out[i] != in[i] {
			t.Errorf("%s: system message %d not kept in place", where, i)
		}
	}
	if lay.Task >= 0 {
		found := false
		for _, m := range out {
			found = found || m == in[lay.Task]
		}
		if !found {
			t.Errorf("%s: the current request was dropped", where)
		}
	}
	notes := 0
	for _, m := range out {
		if IsStrategy(m, StrategySlidingWindow) {
			notes++
		}
	}
	if !pruningOnly && notes > 1 && len(out) != len(in) {
		t.Errorf("%s: %d window notes after the window ran", where, notes)
	}
	if !pruningOnly {
		return
	}
	if len(out) != len(in) {
		t.Fatalf("%s: pruning changed the message count", where)
	}
	for i := range out {
		if out[i] == in[i] {
			continue
		}
		if !IsToolResult(in[i]) || out[i].ToolCallID != in[i].ToolCallID || !IsStrategy(out[i], StrategyToolResultPruning) {
			t.Errorf("%s: message %d changed but is not a pruned result", where, i)
		}
	}
}
