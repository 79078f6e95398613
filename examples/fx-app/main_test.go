package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// noEnv keeps the developer's OPENAI_* variables out of the tests.
func noEnv(string) (string, bool) { return "", false }

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestAppGraphValidates(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{
		nil, // offline
		{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_MODEL": "m"}, // online
	} {
		cfg, err := loadConfig("", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.ValidateApp(appOptions(cfg, output{w: io.Discard}, quietLog()), fx.Invoke(func(*runner) {})); err != nil {
			t.Errorf("env %v: fx.ValidateApp: %v", env, err)
		}
	}
}

// The main job: offline, the demo really runs the tools, crosses the
// trigger at least twice, and ends with the trajectory's answer.
func TestOfflineDemoCompactsAtLeastTwice(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig("", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, rep, err := fxappRun(t, cfg, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	traj, err := parseTrajectory(bundledTrajectory)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitReason != "text" || res.Message.Content != traj.Steps[len(traj.Steps)-1].Content {
		t.Errorf("exit %q with answer %.80q, want the trajectory's final answer", res.ExitReason, res.Message.Content)
	}
	if len(rep.steps) != len(traj.Steps) {
		t.Errorf("%d steps reported, want one per trajectory step (%d)", len(rep.steps), len(traj.Steps))
	}
	if n := len(rep.compactions); n < 2 {
		t.Fatalf("%d compactions, want at least 2 with the default demo window\n%s", n, out.String())
	}
	for i, c := range rep.compactions {
		if c.tokAfter >= c.tokBefore || c.msgsAfter >= c.msgsBefore || c.replaced < 1 {
			t.Errorf("compaction %d: tokens %d -> %d, %d replaced; want a real reduction", i+1, c.tokBefore, c.tokAfter, c.replaced)
		}
		// The replaced steps read files, so the ledger has paths to track,
		// and every one is either kept or reported dropped.
		if c.ids.Found == 0 || c.ids.Survived+c.ids.Appended+c.ids.Dropped != c.ids.Found {
			t.Errorf("compaction %d: identifiers %+v", i+1, c.ids)
		}
	}
	// Every prompt stayed under the window, while the uncompacted
	// conversation grew past it: compaction is what kept the run going.
	window := cfg.Compaction.ContextWindow
	last := rep.steps[len(rep.steps)-1]
	for i, s := range rep.steps {
		if s.est >= window {
			t.Errorf("step %d sent ~%d tokens, more than the %d window", i+1, s.est, window)
		}
	}
	if last.shadow <= window {
		t.Errorf("the uncompacted conversation reached only ~%d tokens; the demo task should outgrow the %d window", last.shadow, window)
	}
	// The tools really ran: the results carry the workspace's text.
	if !containsText(res.Messages, "ledgerd") && !containsSummary(res.Messages) {
		t.Error("the final conversation shows neither workspace content nor a summary")
	}
	if !containsSummary(res.Messages) {
		t.Error("the final conversation carries no summary marker")
	}
	for _, want := range []string{"↳ compaction #1", "step 16", "summary", "compactions"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// fxappRun starts the application built from cfg, runs its task once with
// the step report going to w, and stops it.
func fxappRun(t *testing.T, cfg *appConfig, w io.Writer) (*agent.Result, *reporter, error) {
	t.Helper()
	var r *runner
	app := fxtest.New(t, appOptions(cfg, output{w: w}, quietLog()), fx.Populate(&r))
	app.RequireStart()
	defer app.RequireStop()
	return r.run(context.Background())
}

func containsSummary(msgs []*schema.Message) bool {
	for _, m := range msgs {
		if compaction.IsStrategy(m, compaction.StrategySummarization) {
			return true
		}
	}
	return false
}

func containsText(msgs []*schema.Message, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

func TestRunFlagsAndTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transcript := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--quiet", "--transcript-out", transcript}, &stdout, &stderr, noEnv)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "step  1") || !strings.Contains(stdout.String(), "summary") {
		t.Errorf("--quiet output should be the summary table only:\n%s", stdout.String())
	}
	data, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*schema.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatalf("transcript is not a JSON message list: %v", err)
	}
	if len(msgs) < 3 || msgs[0].Role != schema.System || !containsSummary(msgs) {
		t.Errorf("transcript has %d messages, first role %q, summary marker %v; want the compacted conversation", len(msgs), msgs[0].Role, containsSummary(msgs))
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("compaction:\n  compact_att: 0.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherTask := filepath.Join(t.TempDir(), "task.yaml")
	if err := os.WriteFile(otherTask, []byte("demo:\n  task: summarize the README\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"replay cannot change task", []string{"--config", otherTask}, 1, "demo.task"},
		{"help", []string{"--help"}, 0, ""},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"extra"}, 2, "unexpected arguments"},
		{"typo in config", []string{"--config", bad}, 1, "compaction.compact_att"},
		{"missing config", []string{"--config", filepath.Join(t.TempDir(), "none.yaml")}, 1, "none.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr, noEnv)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr.String(), tt.code, tt.want)
			}
			if tt.name == "help" {
				for _, f := range []string{"--config", "--transcript-out", "--quiet", "OPENAI_BASE_URL", "SUMMARIZER_MODEL"} {
					if !strings.Contains(stdout.String(), f) {
						t.Errorf("--help does not document %s:\n%s", f, stdout.String())
					}
				}
			}
		})
	}
}

// Online: the same task over real HTTP. The fake endpoint plays the
// trajectory's model replies, rejects any request whose tool calls and results
// are out of pairing (what a compaction bug looks like in production), and
// the summarizer is the same endpoint.
func TestOnlineRunOverHTTP(t *testing.T) {
	t.Parallel()
	traj, err := parseTrajectory(bundledTrajectory)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeEndpoint(t, traj)
	env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "agent-model", "SUMMARIZER_MODEL": "summarizer-model"}
	cfg, err := loadConfig("", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	res, rep, err := fxappRun(t, cfg, io.Discard)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatalf("the endpoint rejected %d requests, first: %s", len(rej), rej[0].Rejected)
	}
	if len(rep.compactions) < 2 || res.ExitReason != "text" {
		t.Errorf("%d compactions, exit %q; want at least 2 and a text answer", len(rep.compactions), res.ExitReason)
	}
	summaries := 0
	for _, req := range srv.Requests() {
		if req.Model == "summarizer-model" {
			summaries++
		}
	}
	if summaries < len(rep.compactions) {
		t.Errorf("%d summarizer requests for %d compactions", summaries, len(rep.compactions))
	}
	for _, s := range rep.steps {
		if s.provider == 0 {
			t.Error("a step reported no provider usage over HTTP")
			break
		}
	}
}

// Every strategy the config offers runs the demo to its answer, and each
// compaction is reported with what it did.
func TestDemoUnderEveryStrategy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		strategy string
		what     string // expected in every compaction's description
	}{
		{"summarize", "current_task_"},
		{"slide", compaction.StrategySlidingWindow},
		{"prune", compaction.StrategyToolResultPruning},
		{"pipeline", ""},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte("compaction:\n  strategy: "+tt.strategy+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := loadConfig(path, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			res, rep, err := fxappRun(t, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitReason != "text" || len(rep.compactions) < 2 {
				t.Fatalf("exit %q after %d compactions; want an answer and at least 2", res.ExitReason, len(rep.compactions))
			}
			for i, c := range rep.compactions {
				if c.replaced < 1 || c.tokAfter >= c.tokBefore || !strings.Contains(c.tiers, tt.what) {
					t.Errorf("compaction %d: %q, %d replaced, tokens %d -> %d", i+1, c.tiers, c.replaced, c.tokBefore, c.tokAfter)
				}
			}
		})
	}
}

// fakeEndpoint serves the replies of traj to the model
// "agent-model" and a short fixed summary to "summarizer-model", with usage
// measured on each request.
func fakeEndpoint(t *testing.T, traj *trajectory) *openaitest.Server {
	t.Helper()
	var script []*openaitest.Reply
	for _, s := range traj.Steps {
		if len(s.ToolCalls) == 0 {
			script = append(script, openaitest.Text(s.Content))
			continue
		}
		var calls []openaitest.ToolCall
		for _, c := range s.ToolCalls {
			calls = append(calls, openaitest.Fn(c.ID, c.Name, string(c.Arguments)))
		}
		r := openaitest.Call(calls...)
		r.Content = s.Content
		script = append(script, r)
	}
	agentReplies := openaitest.Script(script...)
	return openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
		if req.Model == "summarizer-model" {
			return openaitest.Text("## Objective\n- INC-2291\n## Decisions and constraints\n(none)\n## Work completed\n- read files\n## Identifiers\n(none)\n## Unresolved\n(none)"), nil
		}
		return agentReplies(req)
	}))
}

// A live run recorded with --record replays offline to the same answer.
func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	traj, err := parseTrajectory(bundledTrajectory)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeEndpoint(t, traj)
	online := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "agent-model", "SUMMARIZER_MODEL": "summarizer-model"}
	dir := t.TempDir()
	recorded := filepath.Join(dir, "rec.json")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--quiet", "--record", recorded}, &stdout, &stderr,
		func(k string) (string, bool) { v, ok := online[k]; return v, ok }); code != 0 {
		t.Fatalf("online run: exit %d\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := parseTrajectory(data)
	if err != nil {
		t.Fatalf("the recording does not parse: %v", err)
	}
	if rec.Model != "agent-model" || len(rec.Steps) != len(traj.Steps) || rec.Task != traj.Task {
		t.Fatalf("recorded model %q, %d steps, task %.40q; want agent-model, %d steps, the bundled task", rec.Model, len(rec.Steps), rec.Task, len(traj.Steps))
	}
	for i := range rec.Steps {
		if rec.Steps[i].Content != traj.Steps[i].Content || len(rec.Steps[i].ToolCalls) != len(traj.Steps[i].ToolCalls) {
			t.Fatalf("recorded step %d differs from what the model said", i+1)
		}
	}
	cfgPath := filepath.Join(dir, "replay.yaml")
	if err := os.WriteFile(cfgPath, []byte("demo:\n  trajectory: "+recorded+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"--config", cfgPath}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "a run of agent-model recorded with --record at ") || !strings.Contains(stdout.String(), "exit text") {
		t.Errorf("the replay did not run the recording to its answer:\n%.600s", stdout.String())
	}
	if code := run(context.Background(), []string{"--record", recorded}, &stdout, &stderr, noEnv); code != 2 {
		t.Errorf("--record offline: exit %d, want 2", code)
	}
}
