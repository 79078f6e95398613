package message

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/notation"
	"github.com/einocompact/einocompact/openaitest"
)

// The test notation (internal/notation).
var (
	user   = notation.User
	asst   = notation.Asst
	call   = notation.Call
	result = notation.Result
)

func TestLastAssistantIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msgs []*schema.Message
		want int
	}{
		{nil, -1},
		{[]*schema.Message{user("u")}, -1},
		{[]*schema.Message{user("u"), asst("a")}, 1},
		{[]*schema.Message{call("c"), result("c", "r")}, 0},
		{[]*schema.Message{call("c"), result("c", "r"), call("d"), result("d", "r")}, 2},
	}
	for i, tc := range tests {
		if got := LastAssistant(tc.msgs); got != tc.want {
			t.Errorf("case %d: %d, want %d", i, got, tc.want)
		}
	}
}

func TestNewMarkerCopiesFields(t *testing.T) {
	t.Parallel()
	fields := map[string]any{"removed_messages": 3, "strategy": "ignored"}
	m := NewFields("sliding_window", 0, fields)
	if m["strategy"] != "sliding_window" || m["removed_messages"] != 3 {
		t.Errorf("NewFields = %v", m)
	}
	if _, has := m["summarized_messages"]; has {
		t.Error("summarized_messages set for n = 0")
	}
	if fields["strategy"] != "ignored" {
		t.Error("NewFields mutated its fields argument")
	}
}

// TestMarkerIntRejectsUnsignedOverflow: an unsigned count too large for int
// is not a count, whichever unsigned type holds it; it must not come back
// wrapped round to a negative number.
func TestMarkerIntRejectsUnsignedOverflow(t *testing.T) {
	t.Parallel()
	for _, v := range []any{uint(math.MaxUint64), uint64(math.MaxUint64), uint(1) << 63} {
		if n, ok := Int(v); ok {
			t.Errorf("Int(%T %v) = %d, true; want false", v, v, n)
		}
	}
	if n, ok := Int(uint(7)); !ok || n != 7 {
		t.Errorf("Int(uint 7) = %d, %v; want 7, true", n, ok)
	}
}

// TestReasoningSentMatchesTheClient pins ReasoningSent to what the real
// eino-ext OpenAI client puts on the wire: each message shape goes through
// the client to a chat-completions test server, and the request body says
// whether "reasoning_content" was sent.
func TestReasoningSentMatchesTheClient(t *testing.T) {
	t.Parallel()
	const thought = "weighing option B"
	text := func(s string) schema.MessageInputPart {
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: s}
	}
	call := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function",
		Function: schema.FunctionCall{Name: "grep", Arguments: "{}"}}}}
	tests := []struct {
		name string
		msg  *schema.Message
	}{
		{"assistant text", &schema.Message{Role: schema.Assistant, Content: "done", ReasoningContent: thought}},
		{"assistant tool call only", &schema.Message{Role: schema.Assistant, ReasoningContent: thought,
			ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "grep", Arguments: "{}"}}}}},
		{"user text", &schema.Message{Role: schema.User, Content: "hi", ReasoningContent: thought}},
		{"tool result", &schema.Message{Role: schema.Tool, ToolCallID: "c1", ToolName: "grep", Content: "ok", ReasoningContent: thought}},
		{"assistant parts", &schema.Message{Role: schema.Assistant, ReasoningContent: thought,
			AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeText, Text: "done"}}}},
		{"user input parts", &schema.Message{Role: schema.User, ReasoningContent: thought, UserInputMultiContent: []schema.MessageInputPart{text("hi")}}},
		{"tool input parts", &schema.Message{Role: schema.Tool, ToolCallID: "c1", ToolName: "grep", ReasoningContent: thought,
			UserInputMultiContent: []schema.MessageInputPart{text("ok")}}},
		{"deprecated parts", &schema.Message{Role: schema.User, ReasoningContent: thought,
			MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "hi"}}}},
		{"deprecated parts on an assistant", &schema.Message{Role: schema.Assistant, ReasoningContent: thought,
			MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "done"}}}},
		{"no reasoning", &schema.Message{Role: schema.Assistant, Content: "done"}},
	}
	srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return openaitest.Text("ok"), nil })
	ctx := context.Background()
	cm, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		// Calls and results come in pairs, or the server rejects them.
		conv := []*schema.Message{schema.UserMessage("start"), tc.msg}
		at := 1
		switch {
		case tc.msg.Role == schema.Tool:
			conv, at = []*schema.Message{schema.UserMessage("start"), call, tc.msg}, 2
		case len(tc.msg.ToolCalls) > 0:
			conv = append(conv, schema.ToolMessage("ok", "c1", schema.WithToolName("grep")))
		}
		if _, err := cm.Generate(ctx, conv); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		reqs := srv.Requests()
		var body struct {
			Messages []map[string]json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
			t.Fatal(err)
		}
		var onWire string
		if raw, ok := body.Messages[at]["reasoning_content"]; ok {
			if err := json.Unmarshal(raw, &onWire); err != nil {
				t.Fatal(err)
			}
		}
		if got := ReasoningSent(tc.msg); got != onWire {
			t.Errorf("%s: ReasoningSent = %q, the client sent %q", tc.name, got, onWire)
		}
	}
}

// TestNotationSummaryIsASummary: the tests' SUM (internal/notation, which
// cannot import this package) carries this package's summarization
// strategy, so every test that builds summaries with it builds real ones.
func TestNotationSummaryIsASummary(t *testing.T) {
	t.Parallel()
	m := notation.Summary("s", 3)
	if !Is(m, StrategySummarization) {
		t.Fatalf("notation.Summary is not read as a %q summary: %v", StrategySummarization, m.Extra)
	}
	fields, _ := Fields(m)
	if n, ok := Int(fields["summarized_messages"]); !ok || n != 3 {
		t.Fatalf("summarized_messages = %d, %v; want 3", n, ok)
	}
}
