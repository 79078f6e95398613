package openaitest

import (
	"strings"
	"testing"
)

func TestCheckToolPairing(t *testing.T) {
	t.Parallel()
	user := Message{Role: "user", Content: Content{Text: "hi"}}
	call := func(ids ...string) Message {
		m := Message{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, Fn(id, "f", "{}"))
		}
		return m
	}
	result := func(id string) Message { return Message{Role: "tool", ToolCallID: id} }
	answer := Message{Role: "assistant", Content: Content{Text: "done"}}

	tests := []struct {
		name    string
		msgs    []Message
		wantErr string
	}{
		{"empty", nil, ""},
		{"plain chat", []Message{user, answer}, ""},
		{"one call answered", []Message{user, call("a"), result("a"), answer}, ""},
		{"parallel calls answered out of order", []Message{user, call("a", "b"), result("b"), result("a"), answer}, ""},
		{"tool result without any call", []Message{user, result("x"), answer}, `tool_call_id "x"`},
		{"tool result for an earlier step", []Message{user, call("a"), result("a"), call("b"), result("a"), result("b")}, `tool_call_id "a"`},
		{"duplicate result", []Message{user, call("a"), result("a"), result("a")}, `tool_call_id "a"`},
		{"missing one of two results", []Message{user, call("a", "b"), result("a"), answer}, "missing b"},
		{"user message cuts results", []Message{user, call("a"), user, result("a")}, "missing a"},
		{"trailing unanswered call", []Message{user, call("a")}, "end of the conversation"},
		{"tool result after a summary user message", []Message{user, {Role: "user", Content: Content{Text: "<conversation_summary>"}}, result("a")}, `tool_call_id "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckToolPairing(tt.msgs)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckToolPairing() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CheckToolPairing() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSplitKeepsUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"héllo", 2, []string{"hé", "ll", "o"}},
		{"日本語", 1, []string{"日", "本", "語"}},
	}
	for _, tt := range tests {
		got := split(tt.in, tt.n)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
