package extractive_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/summarizer/extractive"
)

func Example() {
	s, err := extractive.New(nil)
	if err != nil {
		panic(err)
	}
	transcript := strings.Join([]string{
		"[user] Make the integration tests pass. Don't change the public API.",
		`[assistant -> tool_call id=call_1] bash({"command": "go test ./integration/..."})`,
		"[tool:bash id=call_1] --- FAIL: TestRoundTrip (0.02s)",
		"    store_test.go:41: got 2 rows, want 3",
		"FAIL",
		"exit status 1",
		`[assistant -> tool_call id=call_2] read_file({"path": "integration/store_test.go"})`,
		"[tool:read_file id=call_2] package integration",
		"",
		"import \"testing\"",
		"[assistant] The fixture inserts only two rows; the third insert is missing.",
		"[user] Add the missing insert and rerun.",
	}, "\n")
	reply, err := s.Generate(context.Background(), []*schema.Message{
		schema.SystemMessage("(the compactor's instruction)"),
		schema.UserMessage("<conversation_to_summarize>\n" + transcript + "\n</conversation_to_summarize>"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Content)
	// Output:
	// ## Objective
	// - Make the integration tests pass. Don't change the public API.
	//
	// ## Decisions and constraints
	// (none)
	//
	// ## Work completed
	// - [error] bash({"command": "go test ./integration/..."}) -> «---ˆFAIL:ˆTestRoundTripˆ(0.02s)»
	// - read_file({"path": "integration/store_test.go"}) -> «packageˆintegration»
	// - assistant: The fixture inserts only two rows; the third insert is missing.
	//
	// ## Identifiers
	// (none)
	//
	// ## Unresolved
	// - Add the missing insert and rerun.
}
