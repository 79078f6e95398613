package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/openaitest"
)

// The quickstart run offline: package openaitest stands in for the OpenAI
// endpoint and scripts the model (read main.go, read this file, answer), while
// the real eino-ext client, agent, tool and CompactionHook do the rest. A
// 3,000-token window makes the second file's result reach the trigger, so
// the run shows a compaction.
func Example() {
	srv := openaitest.New(openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		// The summarizer's request: the agent's, cache-aligned, ends with
		// the compactor's instruction, a user message after the agent's
		// steps.
		if last := req.Messages[len(req.Messages)-1]; last.Role == "user" && len(req.Messages) > 2 {
			return openaitest.Text("## Work completed\n- read main.go and go.mod"), nil
		}
		reads := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				reads++
			}
		}
		switch reads {
		case 0:
			return openaitest.Call(openaitest.Fn("call_1", "read_file", `{"path":"main.go"}`)), nil
		case 1:
			return openaitest.Call(openaitest.Fn("call_2", "read_file", `{"path":"example_test.go"}`)), nil
		}
		return openaitest.Text("It wires a compaction hook into an Eino agent."), nil
	}))
	defer srv.Close()

	env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_API_KEY": "test-key"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var stdout, stderr bytes.Buffer
	code := cli(context.Background(), []string{"--window", "3000"}, lookup, &stdout, &stderr)

	fmt.Println("exit:", code)
	fmt.Println("compacted:", strings.Contains(stdout.String(), "compaction before step "))
	fmt.Println("answer:", strings.Contains(stdout.String(), "It wires a compaction hook into an Eino agent."))
	// Output:
	// exit: 0
	// compacted: true
	// answer: true
}
