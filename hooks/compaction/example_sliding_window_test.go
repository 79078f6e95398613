package compaction_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

func exSearch(id string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
		Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"eino"}`}}})
}

// A sliding window keeps the system prompt, the user's request and the newest
// step, and leaves a note saying how much it dropped.
func ExampleSlidingWindowCompactor() {
	note := "[{num_removed} older messages removed]"
	sw, err := compaction.NewSlidingWindowCompactor(context.Background(), &compaction.SlidingWindowConfig{OmissionNote: &note})
	if err != nil {
		panic(err)
	}
	conversation := []*schema.Message{
		schema.SystemMessage("You are a research agent."),
		schema.UserMessage("Find what Eino is."),
		exSearch("c1"), schema.ToolMessage(strings.Repeat("first page of results ", 50), "c1", schema.WithToolName("search")),
		exSearch("c2"), schema.ToolMessage("Eino is CloudWeGo's LLM application framework.", "c2", schema.WithToolName("search")),
	}
	out, err := sw.Compact(context.Background(), conversation, 60, compaction.DefaultCounter())
	if err != nil {
		panic(err)
	}
	fmt.Println(compaction.Render(out, compaction.RenderOptions{}))
	// Output:
	// [system] You are a research agent.
	// [user] Find what Eino is.
	// [user] [2 older messages removed]
	// [assistant -> tool_call] search({"q":"eino"})
	// [tool:search] Eino is CloudWeGo's LLM application framework.
}

// A pipeline prunes old tool results first and drops steps only when pruning
// was not enough.
func ExamplePipeline() {
	prune, _ := compaction.NewToolResultPruningCompactor(context.Background(), nil)
	slide, _ := compaction.NewSlidingWindowCompactor(context.Background(), nil)
	pipeline, err := compaction.NewPipeline(prune, slide)
	if err != nil {
		panic(err)
	}
	conversation := []*schema.Message{
		schema.UserMessage("Find what Eino is."),
		exSearch("c1"), schema.ToolMessage(strings.Repeat("first page of results ", 100), "c1", schema.WithToolName("search")),
		exSearch("c2"), schema.ToolMessage("Eino is CloudWeGo's LLM application framework.", "c2", schema.WithToolName("search")),
	}
	counter := compaction.DefaultCounter()
	before, _ := counter.Count(context.Background(), conversation, nil)
	out, _ := pipeline.Compact(context.Background(), conversation, 100, counter)
	after, _ := counter.Count(context.Background(), out, nil)
	m, _ := compaction.MarkerOf(out[2])
	fmt.Println(len(out), "messages;", m.Strategy, "; fits:", before > 100 && after <= 100)
	// Output:
	// 5 messages; tool_result_pruning ; fits: true
}
