package bench

import (
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// A recall costs nothing while its result is sent verbatim, one re-read when
// only its name survives, a search and a read when nothing does; the
// variants move the line as their names say.
func TestForgetRuleCalls(t *testing.T) {
	t.Parallel()
	call := schema.ToolCall{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path": "internal/store/file_7.go"}`}}
	result := schema.ToolMessage("func handler0() {}\n", "call_1", schema.WithToolName("read_file"))
	rc := Recall{Step: 9, Source: result, Call: call, Name: callName(call)}
	system := schema.SystemMessage("agent")
	verbatim := []*schema.Message{system, schema.AssistantMessage("", []schema.ToolCall{call}), result}
	copied := []*schema.Message{system, schema.AssistantMessage("", []schema.ToolCall{call}), schema.ToolMessage(result.Content, "call_1")}
	named := []*schema.Message{system, schema.UserMessage("<summary>read internal/store/file_7.go</summary>")}
	lost := []*schema.Message{system, schema.UserMessage("<summary>read a file</summary>")}
	cases := []struct {
		rule  ForgetRule
		sent  []*schema.Message
		calls int
	}{
		{DefaultForgetRule, verbatim, 0},
		{DefaultForgetRule, copied, 0},
		{DefaultForgetRule, named, 1},
		{DefaultForgetRule, lost, 2},
		{ForgetRuleReread, lost, 1},
		{ForgetRuleSearch, named, 2},
		{ForgetRuleNamed, named, 0},
		{ForgetRuleNamed, lost, 2},
	}
	for _, c := range cases {
		rec := c.rule.recover(rc, c.sent, Tools(), func(*schema.Message) int { return 7 })
		if rec.Calls != c.calls || len(rec.Extra) != c.calls {
			t.Errorf("%s on %q: %d calls (%d requests), want %d", c.rule.Name, c.sent[len(c.sent)-1].Content, rec.Calls, len(rec.Extra), c.calls)
			continue
		}
		// Each extra request is the one sent plus a call and its result
		// per call so far; the last brings the fact back.
		for k, x := range rec.Extra {
			if len(x.Messages) != len(c.sent)+2*(k+1) || x.Output != 7 || len(x.Tools) != len(Tools()) {
				t.Errorf("%s: extra request %d has %d messages, output %d", c.rule.Name, k, len(x.Messages), x.Output)
			}
			for i, m := range c.sent {
				if x.Messages[i] != m {
					t.Errorf("%s: extra request %d does not start with the request sent", c.rule.Name, k)
				}
			}
		}
		if n := len(rec.Extra); n > 0 {
			if last := rec.Extra[n-1].Messages; last[len(last)-1].Content != result.Content {
				t.Errorf("%s: the last extra call does not read the result again", c.rule.Name)
			}
		}
	}
}

// Recalls do not depend on what a strategy does and do not disturb the
// script: the same seed gives the same recalls, each pointing back at a
// tool result of the script.
func TestRecallsScripted(t *testing.T) {
	t.Parallel()
	_, script := Trajectory(ShapeManySmall, 200, 8000, 2)
	a, b := Recalls(script, 2), Recalls(script, 2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d recalls", len(a), len(b))
	}
	for i, rc := range a {
		if !reflect.DeepEqual(rc, b[i]) {
			t.Fatalf("recall %d differs between two calls", i)
		}
		if rc.Source.Role != schema.Tool || rc.Call.ID != rc.Source.ToolCallID || rc.Name == "" || rc.Name == rc.Call.Function.Arguments {
			t.Fatalf("recall %+v", rc)
		}
		found := false
		for s := max(rc.Step-recallMaxAge, 0); s <= rc.Step-recallMinAge; s++ {
			for _, m := range script[s].Before {
				found = found || m == rc.Source
			}
		}
		if !found {
			t.Fatalf("recall at step %d: its result is not 5-60 steps back", rc.Step)
		}
	}
}
