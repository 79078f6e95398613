package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

const replayFixture = `{"task":"t","source":"recorded","model":"m","recorded_at":"now","steps":[
 {"content":"look","tool_calls":[{"id":"c1","name":"read_file","arguments":{"path":"a.go"}},{"id":"c2","name":"search","arguments":{"pattern":"x"}}]},
 {"content":"done"}]}`

func TestParseTrajectoryRejectsBadTrajectories(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, json, want string }{
		{"no steps", `{"task":"t","source":"scripted","steps":[]}`, "no steps"},
		{"ends in a call", `{"source":"scripted","steps":[{"content":"","tool_calls":[{"id":"c","name":"n","arguments":{}}]}]}`, "ends with an answer"},
		{"call without id", `{"source":"scripted","steps":[{"tool_calls":[{"name":"n","arguments":{}}]},{"content":"x"}]}`, "needs an id"},
		{"unknown field", `{"stepz":[]}`, "unknown field"},
		// Where the steps came from is stated, and a scripted trajectory
		// cannot pass for a model's run.
		{"no source", `{"steps":[{"content":"x"}]}`, `source ""`},
		{"unknown source", `{"source":"measured","steps":[{"content":"x"}]}`, `source "measured"`},
		{"scripted names a model", `{"source":"scripted","model":"m","steps":[{"content":"x"}]}`, "names no model"},
		{"scripted has a date", `{"source":"scripted","recorded_at":"2026-01-01T00:00:00Z","steps":[{"content":"x"}]}`, "names no model"},
		{"recorded without model", `{"source":"recorded","recorded_at":"2026-01-01T00:00:00Z","steps":[{"content":"x"}]}`, "needs the model"},
		{"recorded without time", `{"source":"recorded","model":"m","steps":[{"content":"x"}]}`, "needs the model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseTrajectory([]byte(tt.json)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseTrajectory = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := parseTrajectory(bundledTrajectory); err != nil {
		t.Errorf("the bundled trajectory does not parse: %v", err)
	}
}

func TestReplayModel(t *testing.T) {
	t.Parallel()
	traj, err := parseTrajectory([]byte(replayFixture))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, _ := newReplayModel(traj).WithTools([]*schema.ToolInfo{{Name: "read_file", Desc: "reads"}})
	prompt := []*schema.Message{schema.SystemMessage("sys"), schema.UserMessage("task")}
	first, err := m.Generate(ctx, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 2 || first.ToolCalls[0].Function.Arguments != `{"path":"a.go"}` || first.ResponseMeta.FinishReason != "tool_calls" {
		t.Fatalf("first reply = %+v", first)
	}
	u := first.ResponseMeta.Usage
	if u.PromptTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v, want positive prompt tokens and a consistent total", u)
	}

	// Only one of the two results: the replay refuses to go on, as a
	// provider would refuse an orphaned call.
	partial := append(append([]*schema.Message{}, prompt...), first, schema.ToolMessage("r1", "c1"))
	if _, err := m.Generate(ctx, partial); err == nil || !strings.Contains(err.Error(), "c2") {
		t.Fatalf("missing result: err = %v, want it to name c2", err)
	}
	full := append(partial, schema.ToolMessage(strings.Repeat("long result ", 200), "c2"))
	final, err := m.Generate(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	if final.Content != "done" || len(final.ToolCalls) != 0 || final.ResponseMeta.FinishReason != "stop" {
		t.Errorf("final reply = %+v", final)
	}
	// Prompt tokens are measured on what was sent: the long result counts.
	if final.ResponseMeta.Usage.PromptTokens < u.PromptTokens+2400/4 {
		t.Errorf("prompt tokens %d after a 2400-character result, first call had %d", final.ResponseMeta.Usage.PromptTokens, u.PromptTokens)
	}
	if _, err := m.Generate(ctx, full); err == nil || !strings.Contains(err.Error(), "2 steps") {
		t.Errorf("past the end: err = %v", err)
	}
}

// The bundled trajectory was written by hand, and the demo says so instead
// of passing it off as a model's run.
func TestBundledTrajectoryIsScripted(t *testing.T) {
	t.Parallel()
	traj, err := parseTrajectory(bundledTrajectory)
	if err != nil {
		t.Fatal(err)
	}
	if traj.Source != sourceScripted || traj.Model != "" || traj.RecordedAt != "" {
		t.Fatalf("bundled trajectory: source %q, model %q, recorded_at %q; want scripted with neither", traj.Source, traj.Model, traj.RecordedAt)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--quiet"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("demo exit %d; stderr:\n%s", code, stderr.String())
	}
	want := fmt.Sprintf("a scripted trajectory written by hand for the demo (%d steps), not a model's run", len(traj.Steps))
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("the demo does not say it replays a scripted trajectory:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String(), "recorded") {
		t.Errorf("the demo calls its scripted trajectory recorded:\n%s", stdout.String())
	}
}
