package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestInputPairingFaults(t *testing.T) {
	t.Parallel()
	call := func(ids ...string) *schema.Message {
		var tcs []schema.ToolCall
		for _, id := range ids {
			tcs = append(tcs, schema.ToolCall{ID: id, Function: schema.FunctionCall{Name: "f_" + id}})
		}
		return schema.AssistantMessage("", tcs)
	}
	result := func(id string) *schema.Message { return schema.ToolMessage("ok", id) }
	user := schema.UserMessage("go on")
	tests := []struct {
		name string
		msgs []*schema.Message
		want []string
	}{
		{"paired", []*schema.Message{user, call("a", "b"), result("b"), result("a"), schema.AssistantMessage("done", nil)}, nil},
		{"result answering no call", []*schema.Message{user, call("a"), result("a"), result("x")},
			[]string{`messages[3]: tool result "x" answers no call`}},
		{"call without result", []*schema.Message{user, call("a", "b"), result("a"), user},
			[]string{`messages[1]: tool call "b" (f_b) has no result`}},
		{"result after another message", []*schema.Message{call("a"), user, result("a")},
			[]string{`messages[0]: tool call "a" (f_a)`, `messages[2]: tool result "a" answers no call`}},
		{"answered twice", []*schema.Message{call("a"), result("a"), result("a")},
			[]string{`messages[2]: tool result "a" answers no call`}},
		{"result without id", []*schema.Message{call("a"), result("a"), result("")},
			[]string{"messages[2]: tool result without a tool call id"}},
		{"trailing call", []*schema.Message{user, call("a")},
			[]string{`messages[1]: tool call "a" (f_a) has no result`}},
		{"a result first", []*schema.Message{result("a"), user},
			[]string{`messages[0]: tool result "a" answers no call`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range inputPairingFaults(tt.msgs) {
				got = append(got, f.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("faults %q, want %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("fault %d: %q, want it to start %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestPairingFaultsReported runs the command on a transcript with both kinds
// of fault: a warning by position and exit 0, or exit 1 with
// --strict-pairing; a sound transcript gets no warning.
func TestPairingFaultsReported(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "faulty.json")
	body := `[{"role": "user", "content": "read it"},
		{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}},
			{"id": "c2", "type": "function", "function": {"name": "stat", "arguments": "{}"}}]},
		{"role": "tool", "tool_call_id": "c1", "tool_name": "read", "content": "text"},
		{"role": "tool", "tool_call_id": "c9", "tool_name": "read", "content": "stray"},
		{"role": "assistant", "content": "done"}]`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	faults := []string{`messages[1]: tool call "c2" (stat) has no result`, `messages[3]: tool result "c9" answers no call`}
	args := []string{"compact", "--in", path, "--window", "100000", "--quiet"}
	tests := []struct {
		name  string
		extra []string
		code  int
		first string // the line before the faults
	}{
		{"warning", nil, 0, "warning: " + path + ": 2 tool-call pairing fault(s)"},
		{"strict", []string{"--strict-pairing"}, 1, "einocompact: " + path + ": 2 tool-call pairing fault(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := mtRun(t, mtNoEnv, append(slices.Clone(args), tt.extra...)...)
			if code != tt.code || !strings.Contains(stderr, tt.first) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.first)
			}
			for _, f := range faults {
				if !strings.Contains(stderr, "\n  "+f) {
					t.Errorf("stderr lacks %q:\n%s", f, stderr)
				}
			}
			if compacted := strings.Contains(stdout, "before"); compacted != (tt.code == 0) {
				t.Errorf("report printed: %v, want %v", compacted, tt.code == 0)
			}
		})
	}
	if code, _, stderr := mtRun(t, mtNoEnv, "compact", "--in", "testdata/coding.eino.json", "--window", "100000", "--quiet"); code != 0 || stderr != "" {
		t.Errorf("sound transcript: exit %d, stderr %q", code, stderr)
	}
}

func TestDescribeFaultsCapsTheList(t *testing.T) {
	t.Parallel()
	faults := make([]pairingFault, maxFaultLines+2)
	for i := range faults {
		faults[i] = pairingFault{i, "x"}
	}
	got := describeFaults(faults, "")
	if lines := strings.Count(got, "\n  messages["); lines != maxFaultLines || !strings.HasSuffix(got, "\n  and 2 more") {
		t.Errorf("%d fault lines, text %q", lines, got)
	}
}
