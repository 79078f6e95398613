package agent

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// TestStaleUsageIsNotCarriedIntoTheNextRun: a run that compacts and then
// stops before calling the model again returns a conversation whose last
// reply's usage predates the compaction. The next run must not read it as
// the prompt's size; the caller's copy keeps its usage.
func TestStaleUsageIsNotCarriedIntoTheNextRun(t *testing.T) {
	t.Parallel()
	compactThenStop := hooks.Func(func(_ context.Context, s *hooks.State) error {
		if s.StepCount == 0 {
			return nil
		}
		sum := schema.UserMessage("<conversation_summary>\nasked\n</conversation_summary>")
		sum.Extra = map[string]any{compaction.MetaKey: compaction.NewMarker(compaction.StrategySummarization, 1, nil)}
		rest := s.Messages[len(s.Messages)-2:] // the reply and its result stay
		s.Messages = append([]*schema.Message{s.Messages[0], sum}, rest...)
		s.ContextTokens = 7
		s.StopRun = true
		return nil
	})
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, compactThenStop)
	a, _ := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg, Instruction: "rules"},
		openaitest.Call(call("c1", "k")).WithUsage(100, 10))
	first, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	if first.ExitReason != ExitStop || first.ContextTokens != 7 {
		t.Fatalf("first run: exit %q, ContextTokens %d", first.ExitReason, first.ContextTokens)
	}

	var seen []int
	probe := hooks.NewRegistry()
	mustRegister(t, probe, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		seen = append(seen, s.ContextTokens)
		return nil
	}))
	b, _ := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: probe}, openaitest.Text("done"))
	next := append(first.Messages, schema.UserMessage("go on"))
	if _, err := b.Run(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0] != 0 {
		t.Errorf("the next run started with ContextTokens %v, want 0 (unknown)", seen)
	}
}

// TestFreshUsageIsCarriedIntoTheNextRun is the control: after a normal final
// answer the reply's usage describes the conversation and is kept.
func TestFreshUsageIsCarriedIntoTheNextRun(t *testing.T) {
	t.Parallel()
	a, _ := newTestAgent(t, Config{}, openaitest.Text("hi").WithUsage(40, 2))
	first, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	probe := hooks.NewRegistry()
	mustRegister(t, probe, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		seen = append(seen, s.ContextTokens)
		return nil
	}))
	b, _ := newTestAgent(t, Config{Hooks: probe}, openaitest.Text("done"))
	if _, err := b.Run(context.Background(), append(first.Messages, schema.UserMessage("more"))); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0] != 42 {
		t.Errorf("ContextTokens at the next run's first call %v, want 42", seen)
	}
}
