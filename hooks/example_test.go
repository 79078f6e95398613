package hooks_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

func ExampleRegistry() {
	reg := hooks.NewRegistry()
	// Count the model calls of a run.
	_ = reg.Register(hooks.BeforeLLM, hooks.Func(func(_ context.Context, s *hooks.State) error {
		s.Values["llm_calls"] = s.Values["llm_calls"].(int) + 1
		return nil
	}))
	// Refuse to run without a user message.
	_ = reg.Register(hooks.BeforeRun, hooks.Func(func(_ context.Context, s *hooks.State) error {
		if len(s.Messages) == 0 {
			return fmt.Errorf("no input")
		}
		return nil
	}))

	state := &hooks.State{
		Messages: []*schema.Message{schema.UserMessage("hello")},
		Values:   map[string]any{"llm_calls": 0},
	}
	ctx := context.Background()
	_ = reg.Run(ctx, hooks.BeforeRun, state)
	_ = reg.Run(ctx, hooks.BeforeLLM, state)
	_ = reg.Run(ctx, hooks.BeforeLLM, state)
	fmt.Println("model calls:", state.Values["llm_calls"])

	err := reg.Run(ctx, hooks.BeforeRun, &hooks.State{})
	fmt.Println(err)
	// Output:
	// model calls: 2
	// hooks: hooks.Func at before_run: no input
}
