package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// mtNoEnv is an environment with no endpoint configured.
func mtNoEnv(string) (string, bool) { return "", false }

// mtRun runs a command line in place, with an empty stdin, and returns its
// exit status and output.
func mtRun(t testing.TB, lookup func(string) (string, bool), args ...string) (int, string, string) {
	t.Helper()
	return mtRunStdin(t, strings.NewReader(""), lookup, args...)
}

// mtRunStdin is mtRun reading stdin.
func mtRunStdin(t testing.TB, stdin io.Reader, lookup func(string) (string, bool), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdin, &out, &errb, lookup)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	in := filepath.Join("testdata", "coding.eino.json")
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"shrink"}, 2, `unknown command "shrink"`},
		{"missing --in", []string{"compact", "--window", "100"}, 2, "--in is required"},
		{"missing --window", []string{"compact", "--in", in}, 2, "--window is required"},
		{"zero --window", []string{"compact", "--in", in, "--window", "0"}, 2, "--window must be a positive number of tokens, got 0"},
		{"negative --window", []string{"compact", "--in", in, "--window", "-5"}, 2, "--window must be a positive number of tokens, got -5"},
		{"--at above 1", []string{"compact", "--in", in, "--window", "100", "--at", "1.5"}, 2, "--at must be a fraction of the window above 0 and at most 1, got 1.5"},
		{"--at zero", []string{"compact", "--in", in, "--window", "100", "--at", "0"}, 2, "--at must be a fraction"},
		{"--at NaN", []string{"compact", "--in", in, "--window", "100", "--at", "NaN"}, 2, "--at must be a fraction"},
		{"--to zero", []string{"compact", "--in", in, "--window", "100", "--to", "0"}, 2, "--to must be above 0 and below --at (0.7)"},
		{"--to equal to --at", []string{"compact", "--in", in, "--window", "100", "--at", "0.5", "--to", "0.5"}, 2, "got --to 0.5"},
		{"bad strategy", []string{"compact", "--in", in, "--window", "100", "--strategy", "magic"}, 2, `--strategy "magic"`},
		{"bad counter", []string{"compact", "--in", in, "--window", "100", "--counter", "p50k"}, 2, `--counter "p50k"`},
		{"bad format", []string{"compact", "--in", in, "--window", "100", "--format", "yaml"}, 2, `--format "yaml"`},
		{"fractions out of order", []string{"compact", "--in", in, "--window", "100", "--at", "0.3", "--to", "0.5"}, 2, "--to must be above 0 and below --at (0.3)"},
		{"stray argument", []string{"compact", "--in", in, "--window", "100", "extra"}, 2, `unexpected argument "extra"`},
		{"unknown flag", []string{"compact", "--bogus"}, 2, "bogus"},
		{"negative summary size", []string{"compact", "--in", in, "--window", "100", "--summary-tokens", "-1"}, 2, "--summary-tokens must be at least 0"},
		{"window under the summary floor", []string{"compact", "--in", in, "--window", "2000", "--summary-tokens", "900"}, 2, "--summary-tokens"},
		{"missing file", []string{"compact", "--in", "testdata/nope.json", "--window", "100"}, 1, "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := mtRun(t, mtNoEnv, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.want)
			}
			// The user typed flags: the library's names would not help.
			for _, internal := range []string{"HookConfig", "CompactAt", "CompactTo", "ContextWindow", "compaction:"} {
				if strings.Contains(stderr, internal) {
					t.Errorf("stderr names the library's %s: %q", internal, stderr)
				}
			}
		})
	}
	if code, stdout, _ := mtRun(t, mtNoEnv, "help"); code != 0 || !strings.Contains(stdout, "compact") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
}

// TestMalformedInputPositions checks that errors point at the line and column
// of the problem (columns in characters, 1-based).
func TestMalformedInputPositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, format, body, want string
	}{
		{"missing comma", "eino", "[\n  {\"role\": \"user\", \"content\": \"hi\" \"x\"}\n]", ":2:36: invalid character"},
		{"truncated", "eino", "[\n  {\"role\": \"user\",", ":2:18: unexpected end of JSON input"},
		{"wide characters before the error", "eino", "[{\"role\": \"user\", \"content\": \"日本語\" ]", ":1:36: invalid character ']'"},
		{"wrong type", "eino", "[\n {\"role\": \"user\",\n  \"content\": 42}]", ":3:15: cannot use a JSON number as"},
		{"wrong type inside an OpenAI body", "openai", "{\"model\": \"m\",\n \"messages\": [{\"role\": 7}]}", ":2:24: cannot use a JSON number"},
		{"unknown OpenAI role", "openai", `[{"role": "wizard", "content": "x"}]`, `messages[0].role: "wizard"`},
		{"OpenAI content of the wrong kind", "openai", `[{"role": "user", "content": 3}]`, "messages[0].content: must be a string"},
		{"data after the array", "eino", `[{"role": "user", "content": "a"}] x`, ":1:36: invalid character 'x' after top-level value"},
		{"a null message", "eino", `[{"role": "user", "content": "a"}, null]`, "message 1 is null"},
		{"body without messages", "auto", `{"model": "m"}`, `needs a "messages" array`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.Repeat("f", i+1)+".json")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := mtRun(t, mtNoEnv, "compact", "--in", path, "--window", "100", "--format", tt.format)
			want := tt.want
			if strings.HasPrefix(want, ":") {
				want = path + want // the position follows the file name directly
			}
			if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want %q after the file name", code, stderr, tt.want)
			}
		})
	}
	code, _, stderr := mtRun(t, mtNoEnv, "compact", "--in", "testdata/broken.json", "--window", "100")
	if code != 1 || !strings.Contains(stderr, "testdata/broken.json:3:41: invalid character") {
		t.Errorf("bundled broken.json: exit %d, %q", code, stderr)
	}
}

func TestOpenAIRoundTrip(t *testing.T) {
	t.Parallel()
	tr, err := loadTranscript("testdata/library.openai.json", formatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if tr.format != formatOpenAI || len(tr.tools) != 1 || tr.tools[0].Name != "open_document" {
		t.Fatalf("format %s, tools %v", tr.format, tr.tools)
	}
	img := tr.messages[2]
	if as := compaction.Attachments(img); len(as) != 1 || as[0].Kind != compaction.AttachmentImage {
		t.Fatalf("the image part was lost: %+v", img)
	}
	for _, m := range tr.messages {
		if m.Role == schema.Tool && m.ToolName != "open_document" {
			t.Errorf("tool result %s has tool name %q, want the call's", m.ToolCallID, m.ToolName)
		}
	}
	data, err := tr.encode(tr.messages)
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseTranscript(data, formatOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compaction.Render(back.messages, compaction.RenderOptions{ToolCallIDs: true}),
		compaction.Render(tr.messages, compaction.RenderOptions{ToolCallIDs: true}); got != want {
		t.Errorf("round trip changed the conversation:\n%s\nvs\n%s", got, want)
	}
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	if body["model"] != "gpt-4o-mini" || body["temperature"] != 0.2 {
		t.Errorf("request fields not kept: %v %v", body["model"], body["temperature"])
	}
}

// TestSummarizerFromEnvironment runs the summarize strategy against a fake
// OpenAI-compatible endpoint named by the app's environment variables.
func TestSummarizerFromEnvironment(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, openaitest.Script(
		openaitest.Text("## Objective\n- fix the rates tests"),
		openaitest.Text("## Objective\n- fix the rates tests, then check KRW"),
	))
	env := map[string]string{"SUMMARIZER_BASE_URL": srv.BaseURL(), "SUMMARIZER_API_KEY": "k", "SUMMARIZER_MODEL": "tiny"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code, stdout, stderr := mtRun(t, lookup, "compact", "--in", "testdata/coding.eino.json", "--window", "3000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(srv.Requests()) == 0 || !strings.Contains(stdout, "tiny at "+srv.BaseURL()) {
		t.Errorf("the endpoint was not used: %d requests, %q", len(srv.Requests()), stdout)
	}
	code, stdout, _ = mtRun(t, lookup, "compact", "--in", "testdata/coding.eino.json", "--window", "3000", "--offline")
	if code != 0 || !strings.Contains(stdout, "offline extractive summarizer") {
		t.Errorf("--offline: exit %d, %q", code, stdout)
	}
}

// A small window works with the default summary estimate, and with a
// --summary-tokens that leaves room for one summary under the target; one
// that does not is refused.
func TestSummaryTokensFlag(t *testing.T) {
	t.Parallel()
	args := []string{"compact", "--in", "testdata/coding.eino.json", "--window", "2000", "--quiet"}
	if code, _, _ := mtRun(t, mtNoEnv, append(args, "--summary-tokens", "900")...); code != 2 {
		t.Fatalf("window 2000 (target 800) with 900-token summaries: exit %d, want 2", code)
	}
	for _, extra := range [][]string{nil, {"--summary-tokens", "300"}} {
		code, stdout, stderr := mtRun(t, mtNoEnv, append(slices.Clone(args), extra...)...)
		if code != 0 || !strings.Contains(stdout, "compacted in") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", extra, code, stdout, stderr)
		}
	}
}

// TestDeadSummarizerFailsTheCommand: a summarizer endpoint that fails every
// request makes the command exit 1 naming the cause, not exit 0 with "found
// nothing it may compact", and no output file is written. Both dead shapes
// are servers the test keeps open, reached over real HTTP by the real client,
// so the failure does not depend on a released port staying free.
func TestDeadSummarizerFailsTheCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		start func(t *testing.T) (baseURL string, requests func() int)
		cause string // in stderr, after "summarize failed"
	}{
		{
			// Accepts the request, then closes the connection without a
			// response, as a crashed process behind a proxy does.
			name: "drops every connection",
			start: func(t *testing.T) (string, func() int) {
				var n atomic.Int64
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					n.Add(1)
					// Read the whole request first: closing with unread
					// bytes would reset the connection instead, a cause
					// whose text depends on timing.
					_, _ = io.Copy(io.Discard, r.Body)
					conn, _, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Errorf("hijack: %v", err)
						return
					}
					_ = conn.Close()
				}))
				t.Cleanup(srv.Close)
				return srv.URL + "/v1", func() int { return int(n.Load()) }
			},
			cause: "EOF",
		},
		{
			name: "answers every request with a server error",
			start: func(t *testing.T) (string, func() int) {
				srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
					return &openaitest.Reply{Status: http.StatusServiceUnavailable, ErrorMessage: "summarizer overloaded"}, nil
				})
				return srv.BaseURL(), func() int { return len(srv.Requests()) }
			},
			cause: "summarizer overloaded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, requests := tt.start(t)
			env := map[string]string{"SUMMARIZER_BASE_URL": base, "SUMMARIZER_API_KEY": "k", "SUMMARIZER_MODEL": "tiny"}
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			out := filepath.Join(t.TempDir(), "out.json")
			code, stdout, stderr := mtRun(t, lookup, "compact", "--in", "testdata/coding.eino.json", "--window", "3000", "--quiet", "--out", out)
			if code != 1 || strings.Contains(stdout, "nothing it may compact") {
				t.Fatalf("exit %d, stdout %q; want exit 1 and no claim that nothing could be compacted", code, stdout)
			}
			if !strings.Contains(stderr, "summarize failed") || !strings.Contains(stderr, tt.cause) {
				t.Errorf("stderr does not name the failure and its cause %q:\n%s", tt.cause, stderr)
			}
			if requests() == 0 {
				t.Error("the summarizer saw no request: the failure did not come from it")
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an output file was written: %v", err)
			}
		})
	}
}
