package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// State.LastModelCallAt is zero before a run's first reply and, at each
// later before_llm, the time the previous reply arrived: after the run
// started and before the hook ran.
func TestLastModelCallAt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var last, seen []time.Time
	reg := hooks.NewRegistry()
	mustRegister(t, reg, hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		mu.Lock()
		defer mu.Unlock()
		last, seen = append(last, s.LastModelCallAt), append(seen, time.Now())
		return nil
	}))
	a, _ := newTestAgent(t, Config{Tools: []tool.BaseTool{lookup}, Hooks: reg},
		openaitest.Call(call("c1", "x")).WithUsage(40, 4),
		openaitest.Text("done").WithUsage(60, 3))
	start := time.Now()
	if _, err := a.Run(context.Background(), []*schema.Message{schema.UserMessage("q")}); err != nil {
		t.Fatal(err)
	}
	if len(last) != 2 {
		t.Fatalf("before_llm ran %d times, want 2", len(last))
	}
	if !last[0].IsZero() {
		t.Errorf("first call: LastModelCallAt = %v, want zero (no reply yet)", last[0])
	}
	if last[1].Before(start) || last[1].After(seen[1]) {
		t.Errorf("second call: LastModelCallAt = %v, want between the run's start %v and the hook %v", last[1], start, seen[1])
	}
}
