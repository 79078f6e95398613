package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// writeBigStep writes a transcript whose newest step (a call and its
// result) alone is larger than the target of a 3000-token window.
func writeBigStep(t *testing.T) string {
	t.Helper()
	msgs := []*schema.Message{
		schema.SystemMessage("You are a careful agent."),
		schema.UserMessage("Find the bug in the parser and fix it."),
	}
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		lines := 60
		if i == 5 {
			lines = 400
		}
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path": "f%d.go"}`, i)}}}),
			schema.ToolMessage(strings.Repeat(fmt.Sprintf("line of code %d\n", i), lines), id, schema.WithToolName("read_file")))
	}
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big-step.eino.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// resultParts counts, in a compacted transcript, what explainAbove
// describes: the messages before the first marked one, the marked ones,
// and those after the last.
func resultParts(t *testing.T, msgs []*schema.Message) (front, marked, tail []*schema.Message) {
	t.Helper()
	first, last := -1, -1
	for i, m := range msgs {
		if _, ok := compaction.MarkerOf(m); ok {
			if first < 0 {
				first = i
			}
			last = i
			marked = append(marked, m)
		}
	}
	if first < 0 || last-first+1 != len(marked) {
		t.Fatalf("the result's marked messages are not one run (%d to %d, %d marked)", first, last, len(marked))
	}
	return msgs[:first], marked, msgs[last+1:]
}

// TestExplainAbove (issue 31 item 6): a compaction that leaves the messages
// above their target says why and what the result holds; one within its
// target, or no compaction, says nothing of the kind. Every figure expected
// is computed here from the written result and the documented rules (the
// target is --to of the window; a deep compaction's floor is 20.2 % of the
// window, rounded up).
func TestExplainAbove(t *testing.T) {
	t.Parallel()
	coding := filepath.Join("testdata", "coding.eino.json")
	const window = 3000
	tests := []struct {
		name   string
		in     string
		args   []string
		target int
		reason string // "" when the result is within its target
	}{
		{"deep compaction", coding, nil, window * 4 / 10,
			fmt.Sprintf("the deep compaction keeps the newest %d tokens (20.2 %% of the window) verbatim, in whole steps", (window*202+999)/1000)},
		{"the newest step alone passes the target", writeBigStep(t), nil, window * 4 / 10,
			"summarization never replaces the leading system messages, the latest user request or the newest step"},
		{"within the target", coding, []string{"--to", "0.6"}, window * 6 / 10, ""},
		{"below the trigger", coding, []string{"--window", "100000"}, 0, ""},
	}
	counter := compaction.DefaultCounter()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out.json")
			args := append([]string{"compact", "--in", tt.in, "--window", fmt.Sprint(window), "--offline", "--quiet", "--out", out}, tt.args...)
			code, stdout, stderr := mtRun(t, mtNoEnv, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []*schema.Message
			if err := json.Unmarshal(raw, &msgs); err != nil {
				t.Fatal(err)
			}
			count := func(ms []*schema.Message) int {
				n, err := counter.Count(context.Background(), ms, nil)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			after := count(msgs)
			if tt.reason == "" {
				if strings.Contains(stdout, "above target") {
					t.Errorf("%d tokens against a target of %d, yet the output says it is above:\n%s", after, tt.target, stdout)
				}
				if tt.target > 0 && after > tt.target {
					t.Errorf("the case is wrong: %d tokens are above the target %d", after, tt.target)
				}
				return
			}
			over := after - tt.target
			want := fmt.Sprintf("\nabove target by %d tokens (%.0f %%): %s\n", over, 100*float64(over)/float64(tt.target), tt.reason)
			if !strings.Contains(stdout, want) {
				t.Errorf("the output lacks %q:\n%s", want, stdout)
			}
			front, marked, tail := resultParts(t, msgs)
			holds := fmt.Sprintf("the result holds: %d message%s verbatim first (%d tokens), 1 summary (%d tokens), the newest %d messages verbatim (%d tokens)\n",
				len(front), map[bool]string{true: "", false: "s"}[len(front) == 1], count(front), count(marked), len(tail), count(tail))
			if len(marked) != 1 || !strings.Contains(stdout, holds) {
				t.Errorf("the output lacks %q (%d marked messages):\n%s", holds, len(marked), stdout)
			}
		})
	}
}

// TestMarkedKinds names compacted messages by their markers' strategies,
// in a fixed order.
func TestMarkedKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kinds map[string]int
		want  string
	}{
		{map[string]int{compaction.StrategySummarization: 1}, "1 summary"},
		{map[string]int{compaction.StrategySummarization: 2, compaction.StrategyToolResultPruning: 5}, "2 summaries and 5 pruned tool results"},
		{map[string]int{compaction.StrategySlidingWindow: 1, compaction.StrategyToolResultPruning: 1}, "1 pruned tool result and 1 sliding-window note"},
		{map[string]int{"zeta": 2, "alpha": 1}, "1 alpha message and 2 zeta messages"},
	}
	for _, tt := range tests {
		if got := markedKinds(tt.kinds); got != tt.want {
			t.Errorf("markedKinds(%v) = %q, want %q", tt.kinds, got, tt.want)
		}
	}
}
