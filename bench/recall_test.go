package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// A forgotten fact whose tool result was archived costs one recall call
// when the request names the entry's reference, its result the whole entry
// as the recall tool renders it (with RecallSearch, only the messages
// holding the fact's call); one more call per entry of the chain when only
// a later entry's reference is named; the forgetting rule's calls when no
// named entry leads to it.
func TestRecallArchivedFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	call := schema.ToolCall{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path": "internal/store/file_7.go"}`}}
	result := schema.ToolMessage("func handler0() {}\n", "call_1", schema.WithToolName("read_file"))
	rc := Recall{Step: 9, Source: result, Call: call, Name: callName(call)}
	system := schema.SystemMessage("agent")
	a, err := newSimArchive()
	if err != nil {
		t.Fatal(err)
	}
	span := []*schema.Message{schema.UserMessage("fix the store"), schema.AssistantMessage("", []schema.ToolCall{call}),
		schema.ToolMessage(result.Content, "call_1", schema.WithToolName("read_file"))}
	conv, _ := compaction.ArchiveConversation([]*schema.Message{system, span[0]})
	first, err := a.Put(ctx, conv, span)
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.Put(ctx, conv, []*schema.Message{schema.UserMessage("<summary>read a file</summary>"),
		schema.UserMessage("[Archived: call recall with reference \"" + first + "\"]")})
	if err != nil {
		t.Fatal(err)
	}
	pointing := func(ref string) []*schema.Message {
		return []*schema.Message{system, schema.UserMessage("<summary>read a file</summary>\n[Archived: call recall with reference \"" + ref + "\"]")}
	}
	cases := []recallCase{
		{"the entry named", pointing(first), []string{first}},
		{"a later entry named", pointing(second), []string{second, first}},
		{"no entry named", []*schema.Message{system, schema.UserMessage("<summary>read a file</summary>")}, nil},
	}
	for _, search := range []bool{false, true} {
		r, err := newRecaller(a, search)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			c.check(t, a, r, rc, search)
		}
	}
}

type recallCase struct {
	name string
	sent []*schema.Message
	refs []string // the references recalled, in order; nil: the rule's calls
}

// check checks the recall of rc at c.sent: the calls are recalls of c.refs,
// in order, each returning the entry (search false) or only its messages
// holding the next reference or the fact's call (search true); with no
// refs, the rule's search and read.
func (c recallCase) check(t *testing.T, a *simArchive, r *recaller, rc Recall, search bool) {
	t.Helper()
	bl := newBlocker()
	rule := DefaultForgetRule.recover(rc, c.sent, Tools(), bl.output)
	rec := r.instead(rule, Request{Step: rc.Step, Tools: Tools(), Messages: c.sent}, bl.output)
	if c.refs == nil {
		if rec.Archived || rec.Calls != 2 || rec.Calls != rule.Calls {
			t.Errorf("%s: %d calls, archived %v; want the rule's search and read", c.name, rec.Calls, rec.Archived)
		}
		return
	}
	if !rec.Archived || rec.Calls != len(c.refs) || len(rec.Extra) != len(c.refs) {
		t.Fatalf("%s, search %v: %d calls (%d requests), archived %v; want %d recall calls", c.name, search, rec.Calls, len(rec.Extra), rec.Archived, len(c.refs))
	}
	tokens := 0
	for k, x := range rec.Extra {
		if len(x.Messages) != len(c.sent)+2*(k+1) {
			t.Fatalf("%s: extra request %d has %d messages", c.name, k, len(x.Messages))
		}
		asked, got := x.Messages[len(x.Messages)-2], x.Messages[len(x.Messages)-1]
		args := fmt.Sprintf(`{"reference": %q}`, c.refs[k])
		wanted := rc.Source.ToolCallID
		if k+1 < len(c.refs) {
			wanted = c.refs[k+1]
		}
		if search {
			args = fmt.Sprintf(`{"reference": %q, "search": %q}`, c.refs[k], wanted)
		}
		if len(asked.ToolCalls) != 1 || asked.ToolCalls[0].Function.Name != compaction.RecallToolName ||
			asked.ToolCalls[0].Function.Arguments != args || x.Output != bl.output(asked) {
			t.Fatalf("%s: call %d is %+v, want recall %s", c.name, k, asked.ToolCalls, args)
		}
		if got.Role != schema.Tool || got.ToolName != compaction.RecallToolName {
			t.Fatalf("%s: recall %d's result is a %s message", c.name, k, got.Role)
		}
		_, archived, err := a.Get(context.Background(), c.refs[k])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range archived {
			text := compaction.RenderMessage(m, compaction.RenderOptions{ToolCallIDs: true, Attachment: compaction.DescribeAttachment})
			if want := !search || strings.Contains(text, wanted); strings.Contains(got.Content, text) != want {
				t.Fatalf("%s, search %v: recall %d's result holds archived message %q: %v, want %v", c.name, search, k, m.Content, !want, want)
			}
		}
		tokens += bl.output(got)
	}
	if rec.ResultTokens != tokens {
		t.Errorf("%s: result tokens %d, want the results' %d", c.name, rec.ResultTokens, tokens)
	}
}

// With SimConfig.Archive, einocompact's hook archives what it removes and
// sends the recall tool's schema, and the bill brings forgotten facts back
// by recall; Eino's run, which has no archive, is billed as without it.
func TestSimulateArchiveRecalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := SimConfig{Shape: ShapeManySmall, Steps: 160, Window: 8000, Seed: 3, Strategies: []string{StrategyAligned, StrategyEino}}
	plain, err := Simulate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Archive = true
	archived, err := Simulate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, script := Trajectory(cfg.Shape, cfg.Steps, cfg.Window, cfg.Seed)
	bill := BillConfig{Prices: PricesOpenAI, Rule: &DefaultForgetRule, Recalls: Recalls(script, cfg.Seed)}
	ours, theirs := BillOf(archived[0], bill), BillOf(plain[0], bill)
	if ours.Recalled == 0 || ours.RecallCalls < ours.Recalled || ours.RecallTokens == 0 {
		t.Fatalf("with the archive: %d forgotten, %d recalled in %d calls, %d tokens", ours.Forgotten, ours.Recalled, ours.RecallCalls, ours.RecallTokens)
	}
	if theirs.Recalled != 0 || theirs.RecallCalls != 0 {
		t.Fatalf("without the archive: %d recalled", theirs.Recalled)
	}
	last := archived[0].Requests[len(archived[0].Requests)-1]
	if n := len(last.Tools); n != len(Tools())+1 || last.Tools[n-1].Name != compaction.RecallToolName {
		t.Fatalf("the archive run sends %d tools, want Tools() and recall", n)
	}
	e1, e2 := BillOf(plain[1], bill), BillOf(archived[1], bill)
	if e1.Cost != e2.Cost || e2.Recalled != 0 {
		t.Fatalf("eino: %v without SimConfig.Archive, %v with (%d recalled)", e1.Cost, e2.Cost, e2.Recalled)
	}
}
