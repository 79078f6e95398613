package replytext

import (
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestRefusesMaxTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{errors.New("error, status code: 400, status: 400 Bad Request, message: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."), true},
		{errors.New("max_tokens is not supported by this model"), true},
		{errors.New("error, status code: 400, message: This model's maximum context length is 8192 tokens."), false},
		{errors.New("max_tokens must be at least 1"), false},
		{nil, false},
	} {
		if got := RefusesMaxTokens(tc.err); got != tc.want {
			t.Errorf("RefusesMaxTokens(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestCutBeforeText(t *testing.T) {
	t.Parallel()
	cut := func(m *schema.Message) *schema.Message {
		m.ResponseMeta = &schema.ResponseMeta{FinishReason: "length"}
		return m
	}
	for name, tc := range map[string]struct {
		reply *schema.Message
		want  bool
	}{
		"empty, cut":          {cut(schema.AssistantMessage("", nil)), true},
		"reasoning only, cut": {cut(&schema.Message{Role: schema.Assistant, ReasoningContent: "thinking"}), true},
		"text, cut":           {cut(schema.AssistantMessage("half a summ", nil)), false},
		"a tool call, cut":    {cut(schema.AssistantMessage("", []schema.ToolCall{{ID: "x"}})), false},
		"empty, stopped":      {&schema.Message{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{FinishReason: "stop"}}, false},
		"empty, no meta":      {schema.AssistantMessage("", nil), false},
		"nil":                 {nil, false},
	} {
		if got := CutBeforeText(tc.reply); got != tc.want {
			t.Errorf("%s: CutBeforeText = %v, want %v", name, got, tc.want)
		}
	}
}
