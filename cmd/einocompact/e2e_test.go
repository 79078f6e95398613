package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// e2eBuild compiles the command into a temporary directory.
func e2eBuild(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "einocompact")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// e2eEnv is the test's environment without any endpoint settings, so the
// binary runs offline whatever the developer's shell exports.
func e2eEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "SUMMARIZER_") {
			env = append(env, kv)
		}
	}
	return env
}

// e2ePairing is the providers' rule: every tool result answers a pending call
// of the assistant message before it, and every call is answered before the
// next other message.
func e2ePairing(msgs []*schema.Message) error {
	pending := map[string]bool{}
	for _, m := range msgs {
		if m.Role == schema.Tool {
			if !pending[m.ToolCallID] {
				return errors.New("result " + m.ToolCallID + " answers no pending call")
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			return errors.New("a call is left unanswered")
		}
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = true
		}
	}
	if len(pending) > 0 {
		return errors.New("a call is left unanswered at the end")
	}
	return nil
}

// TestEndToEnd builds the binary and runs it offline on the bundled
// transcripts, checking its exit status, its report, its progress lines and
// the transcript it writes.
func TestEndToEnd(t *testing.T) {
	bin := e2eBuild(t)
	dir := t.TempDir()
	counter := compaction.DefaultCounter()
	tests := []struct {
		name   string
		args   []string
		stdout []string // substrings of the report
		stderr []string // substrings of stderr
		marker string   // a strategy marker the written Eino transcript must carry ("" for OpenAI output)
	}{
		{
			name:   "summarize an Eino transcript",
			args:   []string{"--in", "testdata/coding.eino.json", "--window", "3000"},
			stdout: []string{"eino format, 30 messages", "offline extractive summarizer", "historical_turns", "identifiers"},
			stderr: []string{"einocompact: round 1 (historical_turns)"},
			marker: compaction.StrategySummarization,
		},
		{
			name:   "slide with the exact counter",
			args:   []string{"--in", "testdata/coding.eino.json", "--window", "3000", "--strategy", "slide", "--counter", "o200k"},
			stdout: []string{"counter o200k", "1 sliding_window"},
			marker: compaction.StrategySlidingWindow,
		},
		{
			name: "prune",
			args: []string{"--in", "testdata/fetch.eino.json", "--window", "3000", "--strategy", "prune"},
			// 4 identifiers: the 4 tool-call ids of the file are not counted.
			stdout: []string{"3 tool_result_pruning", "identifiers         4        4"},
			marker: compaction.StrategyToolResultPruning,
		},
		{
			name:   "pipeline on an OpenAI request body",
			args:   []string{"--in", "testdata/library.openai.json", "--window", "1500", "--strategy", "pipeline"},
			stdout: []string{"openai format, 10 messages, 1 tool schemas", "historical_turns"},
			stderr: []string{"einocompact: round 1"},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.Repeat("o", i+1)+".json")
			cmd := exec.Command(bin, append(append([]string{"compact"}, tt.args...), "--out", out)...)
			cmd.Env = e2eEnv()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("report lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			in, err := loadTranscript(tt.args[1], formatAuto)
			if err != nil {
				t.Fatal(err)
			}
			got, err := loadTranscript(out, formatAuto)
			if err != nil {
				t.Fatalf("the written transcript does not load: %v", err)
			}
			if got.format != in.format {
				t.Errorf("written as %s, read as %s", got.format, in.format)
			}
			before, _ := counter.Count(t.Context(), in.messages, nil)
			after, _ := counter.Count(t.Context(), got.messages, nil)
			if after >= before {
				t.Errorf("not smaller: %d -> %d tokens", before, after)
			}
			if err := e2ePairing(got.messages); err != nil {
				t.Error(err)
			}
			if tt.marker != "" && !hasMarker(got.messages, tt.marker) {
				t.Errorf("no %s marker in the written transcript", tt.marker)
			}
			if in.format == formatOpenAI {
				e2eCheckOpenAIBody(t, out)
			}
		})
	}

	t.Run("below the trigger writes the input unchanged", func(t *testing.T) {
		out := filepath.Join(dir, "same.json")
		cmd := exec.Command(bin, "compact", "--in", "testdata/coding.eino.json", "--window", "100000", "--out", out, "--quiet")
		cmd.Env = e2eEnv()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "nothing to compact") || stderr.Len() != 0 {
			t.Fatalf("%v: %s / %q", err, stdout.String(), stderr.String())
		}
		got, err := loadTranscript(out, formatEino)
		if err != nil || len(got.messages) != 30 {
			t.Fatalf("%v, %d messages", err, len(got.messages))
		}
	})

	t.Run("malformed input", func(t *testing.T) {
		cmd := exec.Command(bin, "compact", "--in", "testdata/broken.json", "--window", "100")
		cmd.Env = e2eEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "testdata/broken.json:3:41:") {
			t.Errorf("%v: %q", err, stderr.String())
		}
	})

	t.Run("usage error", func(t *testing.T) {
		cmd := exec.Command(bin, "compact", "--in", "testdata/coding.eino.json")
		cmd.Env = e2eEnv()
		var exit *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("missing --window: %v", err)
		}
	})
}

func hasMarker(msgs []*schema.Message, strategy string) bool {
	for _, m := range msgs {
		if compaction.IsStrategy(m, strategy) {
			return true
		}
	}
	return false
}

// e2eCheckOpenAIBody checks that the written request body still carries the
// request's other fields and passes the fake server's pairing rule.
func e2eCheckOpenAIBody(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model    string               `json:"model"`
		Tools    []json.RawMessage    `json:"tools"`
		Messages []openaitest.Message `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-4o-mini" || len(body.Tools) != 1 {
		t.Errorf("model %q, %d tools: the request's fields were not kept", body.Model, len(body.Tools))
	}
	if err := openaitest.CheckToolPairing(body.Messages); err != nil {
		t.Error(err)
	}
}
