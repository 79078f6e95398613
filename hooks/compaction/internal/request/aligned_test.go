package request

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// TestAlignedSpanReadsTheInstruction checks that Span (compaction.AlignedSpan)
// gives back the positions instruction named, for every shape of span, with
// the default and a custom instruction, and refuses prompts that are not a
// cache-aligned request or name positions past it.
func TestAlignedSpanReadsTheInstruction(t *testing.T) {
	t.Parallel()
	user := schema.UserMessage
	sent := []*schema.Message{schema.SystemMessage("rules"), user("task")}
	for i := range 10 {
		id := fmt.Sprintf("c%d", i)
		call := schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}
		sent = append(sent, schema.AssistantMessage("", []schema.ToolCall{call}),
			schema.ToolMessage("r"+id, id, schema.WithToolName("search")))
	}
	// The default instruction is no custom one ("").
	for _, custom := range []string{"", "Summarize in " + Placeholder + " words."} {
		for _, positions := range [][]int{{2}, {2, 3, 4, 5}, {0, 2, 3, 4, 7}, {2, 3, 6, 7, 8, 21}, {21}} {
			prompt := append(slices.Clip(sent), user(instruction(sent, positions, custom, 200)))
			got, ok := Span(prompt)
			if !ok || !slices.Equal(got, positions) {
				t.Errorf("instruction %q, positions %v: AlignedSpan = %v, %v", custom, positions, got, ok)
			}
		}
	}
	for name, prompt := range map[string][]*schema.Message{
		"a transcript request": transcript.Prompt(transcript.Instruction, "[user] hi"),
		"past the request":     {user("a"), user(lead + "2" + spanEnd + ", from x to y.")},
		"not ascending":        {user("a"), user("b"), user("c"), user(lead + "3 and 1" + spanEnd + ".")},
		"not numbers":          {user("a"), user(lead + "one" + spanEnd + ".")},
		"an assistant's":       {user("a"), schema.AssistantMessage(lead+"1"+spanEnd+".", nil)},
		"too short":            {user(lead + "1" + spanEnd + ".")},
	} {
		if got, ok := Span(prompt); ok {
			t.Errorf("%s: AlignedSpan = %v, true; want false", name, got)
		}
	}
}
