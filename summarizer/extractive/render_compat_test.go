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

// TestReadsTheRequestBoundary: a round over an earlier turn and the current
// request's first steps (the request itself stays out) must not present the
// earlier turn's request as the objective, nor its open end as the next step:
// the summary goes after the current request.
func TestReadsTheRequestBoundary(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		schema.UserMessage("Migrate the billing DB to Postgres."),
		schema.AssistantMessage("Step 1 of the migration is done; step 2 is next.", nil),
		schema.UserMessage("Forget the migration; fix the login page instead."),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "call_l1", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path": "web/login.tsx"}`}}}),
		schema.ToolMessage("export function Login() {}\n"+strings.Repeat("// filler line of the file\n", 20), "call_l1", schema.WithToolName("read_file")),
	}
	tr := compaction.Transcript(msgs, []int{0, 1, 3, 4})
	if strings.Contains(tr, "Forget the migration") {
		t.Fatalf("fixture: the request is in the transcript:\n%s", tr)
	}
	s, err := extractive.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Summarize(context.Background(), "<conversation_to_summarize>\n"+tr+"\n</conversation_to_summarize>")
	if err != nil {
		t.Fatal(err)
	}
	section := func(h string) string {
		_, after, _ := strings.Cut(out, h+"\n")
		body, _, _ := strings.Cut(after, "\n\n")
		return body
	}
	if obj := section("## Objective"); strings.Contains(obj, "billing") {
		t.Errorf("the earlier turn's request is the Objective:\n%s", out)
	}
	if work := section("## Work completed"); !strings.Contains(work, "earlier request: Migrate the billing DB") || !strings.Contains(work, "web/login.tsx") {
		t.Errorf("Work completed lacks the earlier request or the task's step:\n%s", out)
	}
	if open := section("## Unresolved"); strings.Contains(open, "step 2 is next") {
		t.Errorf("the earlier turn's next step is the Unresolved one:\n%s", out)
	}
	if strings.Contains(out, "current_request") || strings.Contains(out, "stands here") {
		t.Errorf("the boundary's note leaked into the summary:\n%s", out)
	}
}
