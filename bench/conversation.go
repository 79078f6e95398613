package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// toolNames are the tools of Tools, in the order calls pick them.
var toolNames = []string{"read_file", "search_code", "run_tests", "http_get"}

// Tools returns the schemas of the four tools the synthetic agent uses.
func Tools() []*schema.ToolInfo {
	str := func(desc string) *schema.ParameterInfo {
		return &schema.ParameterInfo{Type: schema.String, Desc: desc, Required: true}
	}
	return []*schema.ToolInfo{
		{Name: "read_file", Desc: "Read a file of the repository.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"path": str("path from the repository root")})},
		{Name: "search_code", Desc: "Search the repository for a regular expression.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"pattern": str("RE2 pattern"), "glob": {Type: schema.String, Desc: "file filter"}})},
		{Name: "run_tests", Desc: "Run the test suite of a package.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"package": str("Go package path")})},
		{Name: "http_get", Desc: "Fetch a URL.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"url": str("absolute URL")})},
	}
}

// toolCall returns an assistant tool call with arguments that look like the
// ones a model writes for tool name.
func toolCall(r *rand.Rand, id, name string) schema.ToolCall {
	var args string
	switch name {
	case "read_file":
		args = fmt.Sprintf(`{"path": "internal/store/file_%d.go"}`, r.IntN(1000))
	case "search_code":
		args = fmt.Sprintf(`{"pattern": "func .*Handler%d", "glob": "*.go"}`, r.IntN(100))
	case "run_tests":
		args = fmt.Sprintf(`{"package": "./internal/pkg%d/..."}`, r.IntN(50))
	default:
		args = fmt.Sprintf(`{"url": "https://example.com/api/v1/items/%d"}`, r.IntN(100000))
	}
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// resultSize draws a tool result size in bytes: mostly a few hundred, a
// quarter a few kilobytes, one in twenty up to 12 KB.
func resultSize(r *rand.Rand) int {
	switch k := r.IntN(20); {
	case k == 0:
		return 6000 + r.IntN(6000)
	case k < 6:
		return 1000 + r.IntN(2000)
	default:
		return 200 + r.IntN(600)
	}
}

// TailResultBytes is the size of each of the two tool results that end
// every Conversation.
const TailResultBytes = 2048

// Conversation returns exactly n messages (n >= 4) of a deterministic
// tool-using agent conversation: a system prompt, then turns of a user
// request, one to four agent steps (an assistant message with one or two tool
// calls and their results) and a final answer. It ends the way a conversation
// stands right before a model call: an assistant message calling two tools
// and their results of TailResultBytes each.
// Assistant messages carry provider usage (prompt and completion tokens as
// the default counter sees them), as real replies do. Equal arguments give
// equal conversations.
func Conversation(n int, seed uint64) []*schema.Message {
	n = max(n, 4)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	u := newUsageTracker()
	msgs := make([]*schema.Message, 0, n)
	add := func(m *schema.Message) { msgs = append(msgs, u.track(m)) }
	add(schema.SystemMessage("You are a coding agent. Use the tools to inspect the repository, run the tests and fix what fails. " + prose(r, 600)))

	// Whole turns while they fit; then single-call steps to fill up; then
	// the tail every benchmark sees before its model call: one assistant
	// message calling two tools and their two results of TailResultBytes
	// each, so the new-message cost is the same at every n.
	const maxUnit = 1 + 4*3 + 1
	call := 0
	newCall := func() schema.ToolCall {
		call++
		return toolCall(r, fmt.Sprintf("call_%06d", call), toolNames[r.IntN(len(toolNames))])
	}
	step := func(calls []schema.ToolCall, text string, size func() int) {
		add(schema.AssistantMessage(text, calls))
		for _, c := range calls {
			add(schema.ToolMessage(toolOutput(r, size()), c.ID, schema.WithToolName(c.Function.Name)))
		}
	}
	random := func() int { return resultSize(r) }
	for len(msgs)+maxUnit <= n-3 {
		add(schema.UserMessage(prose(r, 60+r.IntN(340))))
		for range 1 + r.IntN(4) {
			calls := make([]schema.ToolCall, 1+r.IntN(2))
			for j := range calls {
				calls[j] = newCall()
			}
			text := ""
			if r.IntN(3) == 0 {
				text = prose(r, 40+r.IntN(160))
			}
			step(calls, text, random)
		}
		add(schema.AssistantMessage(prose(r, 200+r.IntN(1000)), nil))
	}
	if (n-3-len(msgs))%2 == 1 {
		add(schema.UserMessage(prose(r, 60+r.IntN(340))))
	}
	for len(msgs) < n-3 {
		step([]schema.ToolCall{newCall()}, "", random)
	}
	step([]schema.ToolCall{newCall(), newCall()}, "", func() int { return TailResultBytes })
	return msgs
}

// usageTracker stamps assistant messages with the usage a provider would
// report: the prompt is everything before the message plus the tool schemas.
type usageTracker struct {
	counter *compaction.ApproximateTokenCounter
	sum     compaction.Cost
	n       int
	tools   int
}

func newUsageTracker() *usageTracker {
	c := compaction.DefaultCounter()
	tools, _ := c.Count(context.Background(), nil, Tools())
	return &usageTracker{counter: c, tools: tools}
}

func (u *usageTracker) track(m *schema.Message) *schema.Message {
	cost := u.counter.MessageCost(m)
	if m.Role == schema.Assistant {
		prompt := u.counter.Tokens(u.sum, u.n) + u.tools
		completion := u.counter.Tokens(cost, 1)
		m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
		}}
	}
	u.sum = u.sum.Add(cost)
	u.n++
	return m
}

// WithoutUsage returns shallow copies of messages with no ResponseMeta, the
// way a conversation looks when the provider reports no usage or it was
// loaded from a store that dropped it. messages is not modified.
func WithoutUsage(messages []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		c := *m
		c.ResponseMeta = nil
		out[i] = &c
	}
	return out
}

// TextBytes is the size in bytes of the text of messages: contents, tool
// call names and arguments. It is what throughput figures are relative to.
func TextBytes(messages []*schema.Message) int64 {
	var n int64
	for _, m := range messages {
		n += int64(len(m.Content))
		for _, tc := range m.ToolCalls {
			n += int64(len(tc.Function.Name) + len(tc.Function.Arguments))
		}
	}
	return n
}
