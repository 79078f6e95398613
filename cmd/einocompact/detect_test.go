package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

func TestDetectFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"request body", `{"model": "m", "messages": []}`, formatOpenAI},
		{"plain chat", `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`, formatEino},
		{"array content", `[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]`, formatOpenAI},
		{"null content", `[{"role": "user", "content": "q"}, {"role": "assistant", "content": null, "tool_calls": []}]`, formatOpenAI},
		{"developer role", `[{"role": "developer", "content": "be brief"}]`, formatOpenAI},
		{"tool results named by the call only", `[{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
			{"role": "tool", "tool_call_id": "c1", "content": "ok"}]`, formatOpenAI},
		{"tool results with tool_name", `[{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
			{"role": "tool", "tool_call_id": "c1", "tool_name": "f", "content": "ok"}]`, formatEino},
		{"not an array", `"hello"`, formatEino},
		{"a non-object element is skipped", `[1, {"role": "developer", "content": "be brief"}]`, formatOpenAI},
		{"a role of the wrong type does not hide null content", `[{"role": 5, "content": null}]`, formatOpenAI},
		{"a compaction marker", `[{"role": "user", "content": "s", "extra": {"context_compaction": {}}}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]`, formatEino},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, err := detectFormat(strings.NewReader(tt.body)); err != nil || got != tt.want {
				t.Errorf("detectFormat() = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	// The bundled transcripts are what they are named.
	for file, want := range map[string]string{
		"testdata/coding.eino.json": formatEino, "testdata/fetch.eino.json": formatEino, "testdata/library.openai.json": formatOpenAI,
	} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := detectFormat(f); err != nil || got != want {
			t.Errorf("%s detected as %s, %v", file, got, err)
		}
		f.Close()
	}

	if _, err := detectFormat(strings.NewReader(`[{"role": "user",`)); err == nil {
		t.Error("a truncated array was detected without an error")
	}
}

// TestStreamedEqualsWhole checks that the streamed reading of an array gives
// the messages the whole-file reading gives, for each format.
func TestStreamedEqualsWhole(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/coding.eino.json", "testdata/fetch.eino.json", "testdata/library.openai.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := parseTranscript(data, formatAuto)
		if err != nil {
			t.Fatal(err)
		}
		if whole.body != nil {
			// A request body is read whole; its messages array alone streams.
			path := filepath.Join(t.TempDir(), "messages.json")
			if err := os.WriteFile(path, whole.body["messages"], 0o644); err != nil {
				t.Fatal(err)
			}
			file = path
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		streamed, err := streamTranscript(f, formatAuto)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		opts := compaction.RenderOptions{ToolCallIDs: true}
		if streamed.format != whole.format || compaction.Render(streamed.messages, opts) != compaction.Render(whole.messages, opts) {
			t.Errorf("%s: streamed %s and whole %s readings differ", file, streamed.format, whole.format)
		}
		if got, want := len(streamed.messages), len(whole.messages); got != want {
			t.Errorf("%s: %d messages streamed, %d whole", file, got, want)
		}
	}
}
