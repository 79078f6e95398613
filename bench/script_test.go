package bench

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// A Script cut from the conversation a Trajectory grows into replays as
// that Trajectory: every strategy sends the same prompts and pays the same
// bill, so a recorded run (the fx demo's) is billed as docs/benchmarks.md
// bills the generated ones.
func TestScriptReplaysLikeTheTrajectory(t *testing.T) {
	t.Parallel()
	const steps, window, seed = 60, 8000, 3
	system, script := Trajectory(ShapeManySmall, steps, window, seed)
	conv := []*schema.Message{system}
	for _, st := range script {
		conv = append(append(conv, st.Before...), st.Reply)
	}
	s, err := ScriptOf(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	strategies := []string{StrategyEino, StrategyNone, StrategyEinocompact}
	ctx := context.Background()
	generated, err := Simulate(ctx, SimConfig{Shape: ShapeManySmall, Steps: steps, Window: window, Seed: seed, Strategies: strategies})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := Simulate(ctx, SimConfig{Script: s, Window: window, Strategies: strategies})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range generated {
		r := replayed[i]
		if len(r.Steps) != len(g.Steps) || len(r.Compactions) != len(g.Compactions) || len(g.Compactions) == 0 && g.Strategy != StrategyNone {
			t.Fatalf("%s: %d steps and %d compactions replayed, %d and %d generated", g.Strategy, len(r.Steps), len(r.Compactions), len(g.Steps), len(g.Compactions))
		}
		for k := range g.Steps {
			if r.Steps[k].Prompt != g.Steps[k].Prompt {
				t.Errorf("%s step %d: %d tokens replayed, %d generated", g.Strategy, k, r.Steps[k].Prompt, g.Steps[k].Prompt)
			}
		}
		cfg := BillConfig{Prices: PricesOpenAI}
		if a, b := BillOf(r, cfg).Cost, BillOf(g, cfg).Cost; a != b {
			t.Errorf("%s: bill %.0f replayed, %.0f generated", g.Strategy, a, b)
		}
	}
}

// ScriptOf refuses a conversation it cannot cut into steps.
func TestScriptOfRefuses(t *testing.T) {
	t.Parallel()
	for name, conv := range map[string][]*schema.Message{
		"empty":            nil,
		"no system prompt": {schema.UserMessage("task"), schema.AssistantMessage("done", nil)},
		"no reply":         {schema.SystemMessage("s"), schema.UserMessage("task")},
	} {
		if _, err := ScriptOf(conv, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
