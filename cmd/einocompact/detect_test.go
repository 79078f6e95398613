package main

import (
	"encoding/json"
	"os"
	"testing"
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
		{"a compaction marker", `[{"role": "user", "content": "s", "extra": {"context_compaction": {}}}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]`, formatEino},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var probe any
			if err := json.Unmarshal([]byte(tt.body), &probe); err != nil {
				t.Fatal(err)
			}
			if got := detectFormat(probe); got != tt.want {
				t.Errorf("detectFormat() = %s, want %s", got, tt.want)
			}
		})
	}
	// The bundled transcripts are what they are named.
	for file, want := range map[string]string{
		"testdata/coding.eino.json": formatEino, "testdata/fetch.eino.json": formatEino, "testdata/library.openai.json": formatOpenAI,
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var probe any
		if err := json.Unmarshal(data, &probe); err != nil {
			t.Fatal(err)
		}
		if got := detectFormat(probe); got != want {
			t.Errorf("%s detected as %s", file, got)
		}
	}
}
