package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// A ToolResultPruningCompactor leaves a deep compaction's floor alone only
// as a Pipeline stage a summarization stage follows, which summarizes
// what lies before it. On its own under the hook it prunes as with
// AimAtCompactTo: a pruner that kept the floor there stopped short of the
// target with the newest results unpruned, and nothing else came down.
func TestDeepCompactionLonePrunerAimsAtTheTarget(t *testing.T) {
	t.Parallel()
	const window = 20000
	// Earlier turns of text the pruner cannot shrink, then a task whose
	// large results reach well into the newest fifth of the window.
	msgs := []*schema.Message{sys("rules")}
	for i := range 4 {
		msgs = append(msgs, user(fmt.Sprintf("earlier %d ", i)+rep("u", 500)), asst(fmt.Sprintf("done %d ", i)+rep("a", 500)))
	}
	msgs = append(msgs, user("current request"))
	for i := range 10 {
		id := fmt.Sprintf("s%d", i)
		msgs = append(msgs, call(id), result(id, rep("x", 1000)))
	}
	type outcome struct {
		deep   bool
		target int
		after  int
		result []string
	}
	run := func(aim bool) outcome {
		c, err := NewToolResultPruningCompactor(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: window,
			TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), AimAtCompactTo: aim, DisableFallback: true})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(context.Background())
		state := &hooks.State{Messages: msgs}
		r, err := h.Decide(context.Background(), state)
		if err != nil || !r.Triggered || !r.Compacted {
			t.Fatalf("triggered %v, compacted %v, err %v", r.Triggered, r.Compacted, err)
		}
		o := outcome{deep: r.Deep, target: r.Target, after: r.TokensAfter}
		for _, m := range state.Messages {
			o.result = append(o.result, string(m.Role)+":"+m.Content)
		}
		return o
	}
	deepRun, aimed := run(false), run(true)
	if !deepRun.deep || aimed.deep {
		t.Fatalf("Report.Deep %v by default, %v with AimAtCompactTo; want true, false", deepRun.deep, aimed.deep)
	}
	if aimed.after > aimed.target {
		t.Fatalf("with AimAtCompactTo the pruner left %d tokens above its target %d: the case does not need the floor's results", aimed.after, aimed.target)
	}
	if deepRun.after > deepRun.target || !reflect.DeepEqual(deepRun.result, aimed.result) {
		t.Errorf("by default the pruner left %d tokens (target %d), with AimAtCompactTo %d: a lone pruner kept the floor", deepRun.after, deepRun.target, aimed.after)
	}
}
