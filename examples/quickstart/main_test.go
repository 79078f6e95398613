package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/einocompact/einocompact/openaitest"
)

// The README's program runs as written against a fake OpenAI endpoint that
// plays both the agent's model (three file reads, then an answer) and the
// summarizer, under a window small enough that the reads trigger
// compaction. The fake rejects any request with an orphaned tool message.
func TestQuickstartCompacts(t *testing.T) {
	t.Parallel()
	const answer = "main.go builds an agent with a read_file tool and a compaction hook."
	agentReplies := openaitest.Script(
		openaitest.Call(openaitest.Fn("call_1", "read_file", `{"path":"main.go"}`)),
		openaitest.Call(openaitest.Fn("call_2", "read_file", `{"path":"main_test.go"}`)),
		openaitest.Call(openaitest.Fn("call_3", "read_file", `{"path":"main.go"}`)),
		openaitest.Text(answer),
	)
	var summaries, aligned, agentCalls atomic.Int32
	var firstCompactionAfter atomic.Int32 // agent calls made when the summarizer was first called
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		// The summarizer's requests: the transcript request offers no
		// tools; the cache-aligned one (the quickstart's, its summarizer
		// being the agent's model) is the agent's request plus a user
		// instruction, where the agent's own requests after the first end
		// with tool results.
		if len(req.Tools) == 0 || endsWithInstruction(req) {
			if len(req.Tools) > 0 {
				aligned.Add(1)
			}
			if summaries.Add(1) == 1 {
				firstCompactionAfter.Store(agentCalls.Load())
			}
			return openaitest.Text("## Work completed\n- read main.go and main_test.go"), nil
		}
		agentCalls.Add(1)
		return agentReplies(req)
	}))

	var out bytes.Buffer
	if err := run(context.Background(), &out, srv.BaseURL(), "test-key", "test-model", 3_000); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	if !strings.Contains(text, answer) {
		t.Errorf("the answer is not printed:\n%s", text)
	}
	if summaries.Load() == 0 || !strings.Contains(text, "compaction before step") {
		t.Errorf("%d summarizer calls; want the observer to report at least one compaction:\n%s", summaries.Load(), text)
	}
	// The hook compacts synchronously (no PrepareAt) before the model call
	// it reports: the step it names is the agent call that followed.
	var step int32
	if _, err := fmt.Sscanf(text[strings.Index(text, "compaction before step "):], "compaction before step %d", &step); err != nil {
		t.Fatalf("no step in the observer's line: %v", err)
	}
	if want := firstCompactionAfter.Load() + 1; step != want {
		t.Errorf("the observer says the first compaction came before step %d; it came before agent call %d", step, want)
	}
	if aligned.Load() == 0 {
		t.Errorf("no summarizer request was cache-aligned; the quickstart's summarizer is the agent's model")
	}
	if strings.Contains(text, " 0 of them summaries") {
		t.Errorf("the returned history carries no summary:\n%s", text)
	}
	if n := len(srv.Rejected()); n > 0 {
		t.Errorf("the endpoint rejected %d requests", n)
	}
}

// endsWithInstruction reports whether req ends with a user message after an
// assistant reply: a cache-aligned summarizer request.
func endsWithInstruction(req *openaitest.Request) bool {
	n := len(req.Messages)
	if n == 0 || req.Messages[n-1].Role != "user" {
		return false
	}
	for _, m := range req.Messages[:n-1] {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

// goPath finds the Go file a question asks about.
var goPath = regexp.MustCompile(`[\w./-]+\.go`)

// Run from the repository's root, where the README runs it, the quickstart
// finds the file its question names; a read that fails (a path that does not
// exist, or one outside the directory) reaches the model as an "error: "
// result, and the run still ends with the model's answer. The fake model
// reads what the question names, as a model would, plus the two bad paths.
func TestQuickstartRunsFromTheRepositoryRoot(t *testing.T) {
	t.Chdir("../..")
	const answer = "It builds an agent whose conversation a compaction hook keeps small."
	var results atomic.Pointer[[]openaitest.Message]
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			tail := req.Messages[len(req.Messages)-3:]
			results.Store(&tail)
			return openaitest.Text(answer), nil
		}
		asked := goPath.FindString(last.Content.Text)
		return openaitest.Call(
			openaitest.Fn("call_1", "read_file", `{"path":"`+asked+`"}`),
			openaitest.Fn("call_2", "read_file", `{"path":"no/such/file.go"}`),
			openaitest.Fn("call_3", "read_file", `{"path":"../outside.go"}`),
		), nil
	}))

	var out bytes.Buffer
	if err := run(context.Background(), &out, srv.BaseURL(), "test-key", "test-model", 128_000); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), answer) {
		t.Errorf("the answer is not printed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "no compaction: no model call reached 89600 tokens, 70% of the 128000-token window") {
		t.Errorf("a run that never compacted does not say so:\n%s", out.String())
	}
	got := results.Load()
	if got == nil {
		t.Fatal("the model never saw the tool results")
	}
	byID := map[string]string{}
	for _, m := range *got {
		byID[m.ToolCallID] = m.Content.Text
	}
	if r := byID["call_1"]; !strings.Contains(r, "package main") {
		t.Errorf("reading the file the question names gave %.80q; want the file", r)
	}
	for _, id := range []string{"call_2", "call_3"} {
		if r := byID[id]; !strings.HasPrefix(r, "error: ") {
			t.Errorf("%s's result %.80q; want the tool's error after \"error: \"", id, r)
		}
	}
}

// env is a lookup over m, as os.LookupEnv.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// The window is set without editing code: --window, else
// EINOCOMPACT_WINDOW, else the tiny default; a bad value is refused with
// the flag or variable and the value named (issue 31 item 5).
func TestQuickstartWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		set     bool
		flag    int
		env     string
		want    int
		wantErr string
	}{
		{"default", false, 0, "", defaultWindow, ""},
		{"environment", false, 0, "32000", 32000, ""},
		{"the flag before the environment", true, 8000, "32000", 8000, ""},
		{"flag zero", true, 0, "", 0, "--window 0"},
		{"flag negative", true, -5, "", 0, "--window -5"},
		{"environment not a number", false, 0, "128k", 0, `EINOCOMPACT_WINDOW="128k"`},
		{"environment zero", false, 0, "0", 0, `EINOCOMPACT_WINDOW="0"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := windowOf(tc.set, tc.flag, tc.env)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one naming %s", err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || got != tc.want):
				t.Errorf("window %d, error %v; want %d", got, err, tc.want)
			}
		})
	}
	var stderr bytes.Buffer
	if code := cli(context.Background(), []string{"--window", "-1"}, env(nil), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--window -1") {
		t.Errorf("--window -1: exit %d, %q; want 2 and the flag named", code, stderr.String())
	}
}

// A first run, with nothing set but the endpoint, shows a compaction: the
// default window is small enough that reading the file the question names
// and the module's go.mod reaches its trigger.
func TestQuickstartFirstRunCompacts(t *testing.T) {
	t.Chdir("../..")
	const answer = "It wires a compaction hook into an Eino agent."
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		if len(req.Tools) == 0 {
			return openaitest.Text("## Work completed\n- read examples/quickstart/main.go and go.mod"), nil
		}
		reads := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				reads++
			}
		}
		switch reads {
		case 0:
			return openaitest.Call(openaitest.Fn("call_1", "read_file", `{"path":"examples/quickstart/main.go"}`)), nil
		case 1:
			return openaitest.Call(openaitest.Fn("call_2", "read_file", `{"path":"go.mod"}`)), nil
		}
		return openaitest.Text(answer), nil
	}))
	var stdout, stderr bytes.Buffer
	code := cli(context.Background(), nil, env(map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_API_KEY": "test-key"}), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "compaction before step ") || strings.Contains(stdout.String(), "no compaction") {
		t.Errorf("a first run with the default window shows no compaction:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), answer) {
		t.Errorf("the answer is not printed:\n%s", stdout.String())
	}
}

// When the step budget runs out the run says so and exits 1; the last tool
// result is not printed as if it were the answer (it printed the whole of
// go.mod and exited 0).
func TestQuickstartBudgetExhausted(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		if len(req.Tools) == 0 {
			return openaitest.Text("## Work completed\n- read main.go"), nil
		}
		n := calls.Add(1)
		return openaitest.Call(openaitest.Fn(fmt.Sprintf("call_%d", n), "read_file", `{"path":"main.go"}`)), nil
	}))
	var stdout, stderr bytes.Buffer
	code := cli(context.Background(), []string{"--window", "100000"},
		env(map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_API_KEY": "test-key"}), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d after the step budget ran out, want 1", code)
	}
	msg := fmt.Sprintf("the agent stopped without an answer after %d model calls (exit %q", calls.Load(), "max_steps")
	if !strings.Contains(stderr.String(), msg) {
		t.Errorf("stderr %q does not say %q", stderr.String(), msg)
	}
	if strings.Contains(stdout.String(), "package main") {
		t.Errorf("a tool's result is printed as the answer:\n%.300s", stdout.String())
	}
}
