package compaction_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// A CompactionHook with a toy compactor that keeps the system prompt and the
// newest message. Real applications use NewSummarizationCompactor.
func ExampleCompactionHook() {
	keepEnds := compaction.CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ compaction.TokenCounter) ([]*schema.Message, error) {
		if len(msgs) <= 2 {
			return nil, nil
		}
		return []*schema.Message{msgs[0], msgs[len(msgs)-1]}, nil
	})
	hook, err := compaction.NewCompactionHook(context.Background(), &compaction.HookConfig{
		Compactor:     keepEnds,
		ContextWindow: 80, // compact at 56 tokens, down towards 32
		Logger:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		panic(err)
	}

	state := &hooks.State{Messages: []*schema.Message{
		schema.SystemMessage("You are terse."),
		schema.UserMessage("Tell me everything about the history of the printing press, in detail."),
		schema.AssistantMessage("It began in Mainz around 1440, when Johannes Gutenberg combined movable metal type with an oil-based ink and a screw press.", nil),
		schema.UserMessage("Shorter, please."),
	}}
	if err := reg.Run(context.Background(), hooks.BeforeLLM, state); err != nil {
		panic(err)
	}
	for _, m := range state.Messages {
		fmt.Println(m.Role, m.Content)
	}
	// Output:
	// system You are terse.
	// user Shorter, please.
}
