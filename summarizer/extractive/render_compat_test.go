package extractive_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

// TestReadsCompactionTranscript feeds the summarizer what the compactor's
// own renderer produces, so a change on either side that breaks the format
// shows up here.
func TestReadsCompactionTranscript(t *testing.T) {
	t.Parallel()
	earlier := compaction.NewSummaryMessage("## Objective\n- Migrate the billing store\n\n## Decisions and constraints\n- Keep the v1 API\n\n## Work completed\n(none)\n\n## Identifiers\n- internal/billing/store.go\n\n## Unresolved\n(none)", 4)
	msgs := []*schema.Message{
		earlier,
		schema.UserMessage("Now run the migration.\nYou must not drop the invoices table."),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "call_m1", Type: "function", Function: schema.FunctionCall{Name: "bash", Arguments: `{"command": "make migrate"}`}}}),
		schema.ToolMessage("applying 0042_invoices.sql\nmigrate: failed: relation \"invoices\" already exists", "call_m1", schema.WithToolName("bash")),
		schema.AssistantMessage("The migration failed because invoices already exists.", nil),
		schema.UserMessage(strings.Repeat("padding so the transcript is long enough to summarize in full. ", 12)),
	}
	tr := compaction.Transcript(msgs, []int{0, 1, 2, 3, 4, 5})
	s, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Summarize(context.Background(), "<conversation_to_summarize>\n"+tr+"\n</conversation_to_summarize>")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- Migrate the billing store",
		"- Keep the v1 API",
		"- You must not drop the invoices table.",
		`- [error] bash({"command": "make migrate"}) -> «migrate:ˆfailed:ˆrelationˆ"invoices"ˆalreadyˆexists»`,
		"- assistant: The migration failed because invoices already exists.",
		"- internal/billing/store.go",
		"- 0042_invoices.sql",
	} {
		if !strings.Contains(out, want+"\n") && !strings.HasSuffix(out, want) {
			t.Errorf("summary lacks the line %q:\n%s", want, out)
		}
	}
}
