package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/cloudwego/eino/schema"
)

// recordTrajectory turns the assistant replies of a run, in order, into a
// trajectory that replay can play back. It reads the reporter's uncompacted
// copy of the conversation, since compaction removes early replies from
// the run's own.
func (r *reporter) recordTrajectory(task, model string) (*trajectory, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &trajectory{Task: task, Source: sourceRecorded, Model: model, RecordedAt: time.Now().UTC().Format(time.RFC3339),
		Note: "Recorded from a live run by examples/fx-app --record; tool results are not stored because replay runs the tools again."}
	for _, m := range r.shadow {
		if m.Role != schema.Assistant {
			continue
		}
		step := recordedStep{Content: m.Content}
		for _, c := range m.ToolCalls {
			args := json.RawMessage(c.Function.Arguments)
			if !json.Valid(args) {
				return nil, fmt.Errorf("record: tool call %s has arguments that are not JSON: %q", c.ID, c.Function.Arguments)
			}
			step.ToolCalls = append(step.ToolCalls, recordedCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
		}
		t.Steps = append(t.Steps, step)
	}
	if len(t.Steps) == 0 || len(t.Steps[len(t.Steps)-1].ToolCalls) > 0 {
		return nil, fmt.Errorf("record: the run did not end with an answer, so it cannot be replayed")
	}
	return t, nil
}

// writeTrajectory writes t as indented JSON.
func writeTrajectory(path string, t *trajectory) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
