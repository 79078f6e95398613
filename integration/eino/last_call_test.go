package einoint

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// The ADK middleware gives before_llm the time the run's previous reply
// arrived (State.LastModelCallAt), zero at the run's first call.
func TestMiddlewareLastModelCallAt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var last, seen []time.Time
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		mu.Lock()
		defer mu.Unlock()
		last, seen = append(last, s.LastModelCallAt), append(seen, time.Now())
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	mw, err := NewMiddleware(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaitest.Start(t, toolLoop(1))
	start := time.Now()
	if run := runADK(t, srv, mw, false, []*schema.Message{schema.UserMessage("go")}); run.err != nil {
		t.Fatal(run.err)
	}
	if len(last) != 2 {
		t.Fatalf("before_llm ran %d times, want 2", len(last))
	}
	if !last[0].IsZero() {
		t.Errorf("first call: LastModelCallAt = %v, want zero", last[0])
	}
	if last[1].Before(start) || last[1].After(seen[1]) {
		t.Errorf("second call: LastModelCallAt = %v, want between the run's start %v and the hook %v", last[1], start, seen[1])
	}
}
