package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Recall is a scripted step that needs a fact from an earlier tool result:
// a file's content (read_file), a grep's output (search_code), an error
// line (run_tests) or a response (http_get).
type Recall struct {
	Step int // the model call that needs the fact
	// Source is the tool result holding the fact, and Call the call it
	// answered; Name is the identifier the call named (a path, a pattern,
	// a package, a URL), by which the agent can ask for it again.
	Source *schema.Message
	Call   schema.ToolCall
	Name   string
}

// The recall schedule: from step recallFirst on, a step needs an earlier
// fact with probability 1/recallEvery; the fact is in a tool result of a
// step recallMinAge to recallMaxAge steps back (an agent mostly needs what
// it saw a while ago, rarely what it saw at the start).
const (
	recallFirst  = 20
	recallEvery  = 8
	recallMinAge = 5
	recallMaxAge = 60
)

// Recalls scripts which steps of script need which earlier facts. It draws
// from its own generator, so the script is the same with or without them,
// and equal arguments give equal recalls.
func Recalls(script []Step, seed uint64) []Recall {
	r := rand.New(rand.NewPCG(seed, 0x7eca11))
	calls := map[string]schema.ToolCall{}
	for _, st := range script {
		for _, c := range st.Reply.ToolCalls {
			calls[c.ID] = c
		}
	}
	var out []Recall
	for i := recallFirst; i < len(script); i++ {
		if r.IntN(recallEvery) != 0 {
			continue
		}
		from := i - recallMinAge - r.IntN(recallMaxAge-recallMinAge+1)
		if from < 0 {
			continue
		}
		var results []*schema.Message
		for _, m := range script[from].Before {
			if m.Role == schema.Tool {
				results = append(results, m)
			}
		}
		if len(results) == 0 {
			continue
		}
		m := results[r.IntN(len(results))]
		c := calls[m.ToolCallID]
		out = append(out, Recall{Step: i, Source: m, Call: c, Name: callName(c)})
	}
	return out
}

// callName is the argument value a tool call names its target by.
func callName(c schema.ToolCall) string {
	var args map[string]string
	if json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
		return c.Function.Arguments
	}
	for _, k := range []string{"path", "pattern", "package", "url"} {
		if v := args[k]; v != "" {
			return v
		}
	}
	return c.Function.Arguments
}

// ForgetRule decides what a recall costs given the conversation as sent at
// its step. The rule stated in docs/benchmarks.md (DefaultForgetRule): the
// fact is held when the tool result is in the request verbatim; otherwise,
// when the name survives anywhere in the request's text (a summary, the
// ledger, a pruned result's call), the agent pays one extra call to read it
// again; when nothing survives, a search and a read, two extra calls.
type ForgetRule struct {
	Name string
	// NameAlwaysSurvives charges one re-read for every forgotten fact, as if
	// every summary named everything it replaced.
	NameAlwaysSurvives bool
	// NameNeverSurvives charges a search and a read for every forgotten fact.
	NameNeverSurvives bool
	// ResultSurvives counts a fact as held only while its result is there
	// verbatim; when false, a fact counts as held while its name is in the
	// request (a summary that names a file is taken to hold its content).
	ResultSurvives bool
}

// The forgetting rules the bill is shown under: the default, and the
// variants that show how the ranking moves when the rule changes.
var (
	DefaultForgetRule = ForgetRule{Name: "verbatim result, else name: 1 call, else 2", ResultSurvives: true}
	ForgetRuleReread  = ForgetRule{Name: "verbatim result, else 1 call", ResultSurvives: true, NameAlwaysSurvives: true}
	ForgetRuleSearch  = ForgetRule{Name: "verbatim result, else 2 calls", ResultSurvives: true, NameNeverSurvives: true}
	ForgetRuleNamed   = ForgetRule{Name: "name in context holds the fact, else 2 calls"}
)

// ForgetRules lists the rules in report order, the default first.
var ForgetRules = []ForgetRule{DefaultForgetRule, ForgetRuleReread, ForgetRuleSearch, ForgetRuleNamed}

// Recovery is what a recall cost at its step: nothing when the fact was
// held, else the extra calls, each a main-model request (Extra) with the
// output that wrote its tool call.
type Recovery struct {
	Recall Recall
	Calls  int // 0, 1 or 2; with an archive, the recall calls
	Extra  []Request
	// Archived says the fact came back through the recall tool (the
	// recall model of SimConfig.Archive); ResultTokens are then the
	// tokens of the recall results.
	Archived     bool
	ResultTokens int
}

// recallResultBytes is the size of a search's result: a few matching lines.
const recallResultBytes = 300

// recover applies rule to recall at the request sent (messages, tools).
// The extra calls come before the step's answer, and their tool results are
// not kept: the step's call as scripted stands for the call that uses what
// they brought back. So a re-read is one more request, the one sent plus
// the call and its result; a search and read two, each longer by a call
// and a result.
func (rule ForgetRule) recover(rc Recall, sent []*schema.Message, tools []*schema.ToolInfo, output func(*schema.Message) int) Recovery {
	rec := Recovery{Recall: rc}
	if rule.ResultSurvives {
		for _, m := range sent {
			if m == rc.Source || (m.Role == schema.Tool && m.Content == rc.Source.Content) {
				return rec
			}
		}
	}
	named := !rule.NameNeverSurvives && (rule.NameAlwaysSurvives || mentions(sent, rc.Name))
	if !rule.ResultSurvives && named {
		return rec
	}
	prefix := sent
	step := func(call schema.ToolCall, result string) {
		a := schema.AssistantMessage("", []schema.ToolCall{call})
		t := schema.ToolMessage(result, call.ID, schema.WithToolName(call.Function.Name))
		prefix = append(prefix[:len(prefix):len(prefix)], a, t)
		rec.Extra = append(rec.Extra, Request{Step: rc.Step, Tools: tools, Messages: prefix, Output: output(a)})
	}
	if !named {
		id := fmt.Sprintf("recall_%d_search", rc.Step)
		search := schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: "search_code",
			Arguments: fmt.Sprintf(`{"pattern": %q}`, rc.Name)}}
		step(search, searchResult(rc))
	}
	again := rc.Call
	again.ID = fmt.Sprintf("recall_%d_again", rc.Step)
	step(again, rc.Source.Content)
	rec.Calls = len(rec.Extra)
	return rec
}

// searchResult is what a search for the lost name returns: lines naming it.
func searchResult(rc Recall) string {
	var b strings.Builder
	for i := 0; b.Len() < recallResultBytes; i++ {
		fmt.Fprintf(&b, "internal/pkg%d/handler.go:%d: %s\n", rc.Step%50, 10+7*i, rc.Name)
	}
	return b.String()
}

// mentions reports whether name occurs in the text of messages: contents
// and tool-call arguments.
func mentions(messages []*schema.Message, name string) bool {
	for _, m := range messages {
		if strings.Contains(m.Content, name) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Function.Arguments, name) {
				return true
			}
		}
	}
	return false
}
