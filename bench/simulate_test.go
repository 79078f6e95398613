package bench

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// A short run on a small window is enough to see several compactions of
// each strategy; these are the invariants every reported number rests on.
func TestSimulateInvariants(t *testing.T) {
	t.Parallel()
	for _, shape := range Shapes {
		cfg := SimConfig{Shape: shape, Steps: 80, Window: 8000, Seed: 3}
		system, script := Trajectory(shape, cfg.Steps, cfg.Window, cfg.Seed)
		pristine := deepCopyScript(script)
		res, err := Simulate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(script, pristine) || system == nil {
			t.Fatalf("%s: the script changed while it was replayed", shape)
		}
		if len(res) != 2 || res[0].Strategy != StrategyEinocompact || res[1].Strategy != StrategyEino {
			t.Fatalf("%s: results %v", shape, res)
		}
		for _, r := range res {
			if len(r.Steps) != cfg.Steps || len(r.Compactions) == 0 {
				t.Fatalf("%s/%s: %d steps, %d compactions", shape, r.Strategy, len(r.Steps), len(r.Compactions))
			}
			trigger := int(0.7 * float64(cfg.Window))
			for _, c := range r.Compactions {
				if len(c.Calls) == 0 || c.InputTokens <= 0 || c.After >= c.Before || c.Before < trigger {
					t.Errorf("%s/%s: compaction %+v", shape, r.Strategy, c)
				}
				if r.Strategy == StrategyEino && c.Retained != 0 {
					t.Errorf("%s: Eino kept %d tokens verbatim; it replaces everything", shape, c.Retained)
				}
			}
			for _, s := range r.Steps {
				if s.Prompt > s.Before {
					t.Errorf("%s/%s step %d: sent %d tokens, more than the %d before", shape, r.Strategy, s.Step, s.Prompt, s.Before)
				}
			}
		}
	}
}

// Both strategies must see the same work: replaying the script without
// compaction gives the same "before" sizes up to the first compaction.
func TestSimulateSameWorkUntilFirstCompaction(t *testing.T) {
	t.Parallel()
	res, err := Simulate(context.Background(), SimConfig{Shape: ShapeManyTurns, Steps: 60, Window: 8000, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	first := min(res[0].Compactions[0].Step, res[1].Compactions[0].Step)
	for i := 0; i <= first; i++ {
		if a, b := res[0].Steps[i].Before, res[1].Steps[i].Before; a != b {
			t.Fatalf("step %d: einocompact saw %d tokens, Eino %d", i, a, b)
		}
	}
}

// No tool result may lose the call it answers, whatever was compacted.
func TestSimulateNoOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := SimConfig{Shape: ShapeFewHuge, Steps: 120, Window: 8000, Seed: 4, CompactAt: 0.7, CompactTo: 0.4}
	system, script := Trajectory(cfg.Shape, cfg.Steps, cfg.Window, cfg.Seed)
	summarizer := &Summarizer{}
	strat, err := newSimStrategy(ctx, StrategyEinocompact, cfg, summarizer, compaction.DefaultCounter(), Tools(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*schema.Message{system}
	tokens := 0
	for i, st := range script {
		msgs = append(msgs[:len(msgs):len(msgs)], st.Before...)
		msgs, err = strat.beforeModel(ctx, msgs, tokens, i)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]bool{}
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
			if m.Role == schema.Tool && !calls[m.ToolCallID] {
				t.Fatalf("step %d: tool result %s without its call", i, m.ToolCallID)
			}
		}
		reply := *st.Reply
		reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{TotalTokens: 1, PromptTokens: 1}}
		msgs = append(msgs, &reply)
		tokens = 0 // no usage: the hook counts everything each time
	}
}

func deepCopyScript(script []Step) []Step {
	out := make([]Step, len(script))
	for i, s := range script {
		r := *s.Reply
		if s.Reply.ToolCalls != nil {
			r.ToolCalls = append([]schema.ToolCall{}, s.Reply.ToolCalls...)
		}
		before := make([]*schema.Message, len(s.Before))
		for j, m := range s.Before {
			c := *m
			before[j] = &c
		}
		out[i] = Step{Before: before, Reply: &r, Pause: s.Pause}
	}
	return out
}

// With PrepareAt the simulation adds a third strategy whose compactions are
// prepared in the background: it must keep every invariant of the others,
// apply prepared results, and wait less in simulated time than the
// synchronous hook on the same script.
func TestSimulatePrepared(t *testing.T) {
	t.Parallel()
	for _, shape := range Shapes {
		cfg := SimConfig{Shape: shape, Steps: 120, Window: 8000, Seed: 5, PrepareAt: 0.45}
		res, err := Simulate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 3 || res[2].Strategy != StrategyPrepared {
			t.Fatalf("%s: results %v", shape, res)
		}
		sync, prep := res[0], res[2]
		stall := func(r *SimResult) (total time.Duration, prepared int) {
			for _, c := range r.Compactions {
				total += c.Stall
				if c.Prepared {
					prepared++
				}
				if c.Late && !c.Prepared {
					t.Errorf("%s/%s step %d: late but not prepared", shape, r.Strategy, c.Step)
				}
			}
			return total, prepared
		}
		ss, sp := stall(sync)
		ps, pp := stall(prep)
		if sp != 0 || pp == 0 {
			t.Fatalf("%s: prepared compactions: synchronous hook %d, prepared %d", shape, sp, pp)
		}
		if ps >= ss || prep.Time >= sync.Time {
			t.Errorf("%s: prepared stalled %v over a %v run, synchronous %v over %v", shape, ps, prep.Time, ss, sync.Time)
		}
		var prev time.Duration
		for _, s := range prep.Steps {
			if s.Prompt > cfg.Window || s.Prompt > s.Before {
				t.Errorf("%s step %d: sent %d tokens (%d before, window %d)", shape, s.Step, s.Prompt, s.Before, cfg.Window)
			}
			if s.Step > 0 && s.At <= prev {
				t.Errorf("%s step %d: simulated time %v does not advance from %v", shape, s.Step, s.At, prev)
			}
			prev = s.At
		}
	}
}

// The prepared strategy's background compactions follow the simulated
// clock, not the goroutine scheduler (simGate): the same config gives the
// same compactions, stalls, deferred calls and run time every time. Before
// the gate, whether a job was finished at a call depended on scheduling.
func TestSimulatePreparedDeterministic(t *testing.T) {
	t.Parallel()
	type outcome struct {
		Compactions []string
		Steps       []StepRecord
		Time        time.Duration
		Deferred    int
		Discarded   int
		Unused      int
	}
	run := func(shape Shape) outcome {
		res, err := Simulate(context.Background(), SimConfig{Shape: shape, Steps: 200, Window: 8000, Seed: 3, PrepareAt: 0.45})
		if err != nil {
			t.Fatal(err)
		}
		r := res[2]
		o := outcome{Steps: r.Steps, Time: r.Time, Deferred: r.Deferred, Discarded: r.Discarded, Unused: len(r.Unused)}
		for _, c := range r.Compactions {
			o.Compactions = append(o.Compactions, fmt.Sprintf("%d %v %v %v %d %d %d %d", c.Step, c.Stall, c.Prepared, c.Late, c.InputTokens, c.OutputTokens, c.Before, c.After))
		}
		return o
	}
	for _, shape := range Shapes {
		first := run(shape)
		for range 3 {
			if again := run(shape); !reflect.DeepEqual(first, again) {
				t.Fatalf("%s: two runs of the same config differ:\n%+v\n%+v", shape, first, again)
			}
		}
		if shape == ShapeFewHuge && first.Deferred == 0 {
			t.Errorf("%s: no call was deferred; the test no longer covers deferral", shape)
		}
	}
}

// The floor bound's summaries cost one output token and carry no ledger,
// and its compactions keep a fifth of the window verbatim like
// StrategyAligned's: what it measures is the floor's own price.
func TestFloorBoundWritesNothingAndKeepsTheFloor(t *testing.T) {
	t.Parallel()
	for _, shape := range Shapes {
		cfg := SimConfig{Shape: shape, Steps: 120, Window: 16000, Seed: 2, Strategies: []string{StrategyFloorBound, StrategyAligned}}
		res, err := Simulate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		bound, aligned := res[0], res[1]
		if len(bound.Compactions) == 0 {
			t.Fatalf("%s: the floor bound never compacted", shape)
		}
		for _, c := range bound.Compactions {
			for _, call := range c.Calls {
				if call.OutputTokens > 1 {
					t.Errorf("%s step %d: the floor bound's summarizer wrote %d tokens", shape, c.Step, call.OutputTokens)
				}
			}
			if 5*c.Retained < cfg.Window {
				t.Errorf("%s step %d: %d tokens verbatim, below a fifth of %d", shape, c.Step, c.Retained, cfg.Window)
			}
		}
		for _, rq := range bound.Requests {
			for _, m := range rq.Messages {
				if _, ok := compaction.MarkerOf(m); ok && len(m.Content) > 200 {
					t.Errorf("%s step %d: a floor-bound summary of %d characters", shape, rq.Step, len(m.Content))
				}
			}
		}
		if sum := func(r *SimResult) (n int) {
			for _, c := range r.Compactions {
				n += c.OutputTokens
			}
			return n
		}; sum(bound) >= sum(aligned) {
			t.Errorf("%s: the floor bound wrote %d summary tokens, einocompact-aligned %d", shape, sum(bound), sum(aligned))
		}
	}
}
