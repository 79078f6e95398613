package compaction

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// TestAlignedSpanReadsTheInstruction checks that AlignedSpan gives back the
// positions alignedInstruction named, for every shape of span, with the
// default and a custom instruction, and refuses prompts that are not a
// cache-aligned request or name positions past it.
func TestAlignedSpanReadsTheInstruction(t *testing.T) {
	t.Parallel()
	sent := []*schema.Message{sys("rules"), user("task")}
	for i := range 10 {
		id := fmt.Sprintf("c%d", i)
		sent = append(sent, call(id), result(id, "r"+id))
	}
	for _, instruction := range []string{"", "Summarize in " + BudgetWordsPlaceholder + " words."} {
		c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: scFixed(t, "s"), SummaryInstruction: instruction})
		if err != nil {
			t.Fatal(err)
		}
		for _, positions := range [][]int{{2}, {2, 3, 4, 5}, {0, 2, 3, 4, 7}, {2, 3, 6, 7, 8, 21}, {21}} {
			prompt := append(slices.Clip(sent), schema.UserMessage(c.alignedInstruction(sent, positions, 200)))
			got, ok := AlignedSpan(prompt)
			if !ok || !slices.Equal(got, positions) {
				t.Errorf("instruction %q, positions %v: AlignedSpan = %v, %v", instruction, positions, got, ok)
			}
		}
	}
	for name, prompt := range map[string][]*schema.Message{
		"a transcript request": transcript.Prompt(DefaultSummaryInstruction, "[user] hi"),
		"past the request":     {user("a"), schema.UserMessage(request.Lead + "2" + request.SpanEnd + ", from x to y.")},
		"not ascending":        {user("a"), user("b"), user("c"), schema.UserMessage(request.Lead + "3 and 1" + request.SpanEnd + ".")},
		"not numbers":          {user("a"), schema.UserMessage(request.Lead + "one" + request.SpanEnd + ".")},
		"an assistant's":       {user("a"), schema.AssistantMessage(request.Lead+"1"+request.SpanEnd+".", nil)},
		"too short":            {schema.UserMessage(request.Lead + "1" + request.SpanEnd + ".")},
	} {
		if got, ok := AlignedSpan(prompt); ok {
			t.Errorf("%s: AlignedSpan = %v, true; want false", name, got)
		}
	}
}
