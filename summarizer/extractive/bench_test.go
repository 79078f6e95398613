package extractive

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// extBenchTranscript is a realistic agent transcript of about size bytes:
// requests, tool calls with JSON arguments, multi-line results, errors.
func extBenchTranscript(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "[user] Step %d: check internal/store/file_%d.go and keep the API; you must not use reflection\n", i, i)
		fmt.Fprintf(&b, "[assistant -> tool_call id=call_%d] read_file({\"path\": \"internal/store/file_%d.go\"})\n", i, i)
		fmt.Fprintf(&b, "[tool:read_file id=call_%d] package store\n", i)
		for j := range 30 {
			fmt.Fprintf(&b, "func f%d_%d(ctx context.Context) error { return fmt.Errorf(\"wrap: %%w\", err) } // line %d\n", i, j, j)
		}
		fmt.Fprintf(&b, "[assistant -> tool_call id=call_%db] bash({\"command\": \"go test ./internal/store/...\"})\n", i)
		fmt.Fprintf(&b, "[tool:bash id=call_%db] --- FAIL: TestStore%d (0.01s)\nError: expected 3, got %d (commit %07x)\n", i, i, i, 0xabc0000+i)
		fmt.Fprintf(&b, "[assistant] The store test %d fails; see https://ci.example.com/runs/%d\n", i, i)
	}
	return b.String()
}

func BenchmarkSummarize(b *testing.B) {
	s, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, size := range []int{16 << 10, 1 << 20} {
		prompt := "<conversation_to_summarize>\n" + extBenchTranscript(size) + "\n</conversation_to_summarize>"
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(prompt)))
			for b.Loop() {
				if _, err := s.Summarize(ctx, prompt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
