package einoint

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

func newReact(t *testing.T, srv *openaitest.Server, hook hooks.Hook) *react.Agent {
	t.Helper()
	ctx := context.Background()
	cfg := &react.AgentConfig{
		ToolCallingModel: chatModel(t, srv),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{lookupTool{}}},
		MaxStep:          40,
	}
	if err := InstallReact(ctx, cfg, hook); err != nil {
		t.Fatal(err)
	}
	a, err := react.NewAgent(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReactRewritePersists drops the oldest tool step before the third
// model call; the third and fourth prompts must both lack it.
func TestReactRewritePersists(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, toolLoop(3))
	var sawTools atomic.Int32
	var compacted atomic.Bool
	hook := hooks.Func(func(_ context.Context, s *hooks.State) error {
		sawTools.Store(int32(len(s.Tools)))
		if s.StepCount == 2 && !compacted.Swap(true) {
			// [U, C1, T1, C2, T2] -> [U, SUM, C2, T2]
			sum := schema.UserMessage("<conversation_summary>\nlooked up k1\n</conversation_summary>")
			s.Messages = append([]*schema.Message{s.Messages[0], sum}, s.Messages[3:]...)
		}
		return nil
	})
	a := newReact(t, srv, hook)
	msg, err := a.Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	if err != nil {
		t.Fatalf("Generate: %v (rejected %v)", err, srv.Rejected())
	}
	if msg.Content != "final answer" {
		t.Errorf("answer = %q", msg.Content)
	}
	reqs := srv.Requests()
	// The loop answers after 3 results in the prompt; one was compacted away.
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, r := range reqs[2:] {
		p := r.PromptText()
		if strings.Contains(p, "lookup(k1)=ok") || !strings.Contains(p, "looked up k1") {
			t.Errorf("prompt %d not compacted:\n%s", i+3, p)
		}
	}
	if sawTools.Load() != 1 {
		t.Errorf("hook saw %d tool schemas, want 1", sawTools.Load())
	}
}

func TestReactHookErrorsBecomeRunErrors(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("compaction failed")
	tests := []struct {
		name    string
		hook    hooks.Func
		wantIs  error
		stream  bool
		wantReq int
	}{
		{"error on the first call", func(context.Context, *hooks.State) error { return sentinel }, sentinel, false, 0},
		{"error on a later call", func(_ context.Context, s *hooks.State) error {
			if s.StepCount == 1 {
				return sentinel
			}
			return nil
		}, sentinel, false, 1},
		{"error while streaming", func(context.Context, *hooks.State) error { return sentinel }, sentinel, true, 0},
		{"panic", func(context.Context, *hooks.State) error { panic("boom") }, hooks.ErrHookPanic, false, 0},
		{"stop", func(_ context.Context, s *hooks.State) error { s.StopRun = true; return nil }, ErrStopped, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.Start(t, toolLoop(2))
			a := newReact(t, srv, tt.hook)
			in := []*schema.Message{schema.UserMessage("go")}
			var err error
			if tt.stream {
				var sr *schema.StreamReader[*schema.Message]
				if sr, err = a.Stream(context.Background(), in); err == nil {
					for {
						if _, err = sr.Recv(); err != nil {
							break
						}
					}
				}
			} else {
				_, err = a.Generate(context.Background(), in)
			}
			if !errors.Is(err, tt.wantIs) {
				t.Fatalf("error = %v, want errors.Is %v", err, tt.wantIs)
			}
			if n := len(srv.Requests()); n != tt.wantReq {
				t.Errorf("provider saw %d requests, want %d (the failing call must not be sent)", n, tt.wantReq)
			}
		})
	}
}

func TestInstallReactValidates(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, toolLoop(0))
	ok := hooks.Func(func(context.Context, *hooks.State) error { return nil })
	installed := &react.AgentConfig{ToolCallingModel: chatModel(t, srv)}
	if err := InstallReact(context.Background(), installed, ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  *react.AgentConfig
		hook hooks.Hook
		want string
	}{
		{"nil config", nil, ok, "nil *react.AgentConfig"},
		{"nil hook", &react.AgentConfig{ToolCallingModel: chatModel(t, srv)}, nil, "nil hook"},
		{"no model", &react.AgentConfig{}, ok, "ToolCallingModel is required"},
		{"twice", installed, ok, "already has a hook"},
		{"point not allowed", &react.AgentConfig{ToolCallingModel: chatModel(t, srv)}, afterRunOnly{}, "cannot run at before_llm"},
		{"nil tool", &react.AgentConfig{ToolCallingModel: chatModel(t, srv), ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{nil}}}, ok, "Tools[0] is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := InstallReact(context.Background(), tt.cfg, tt.hook)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("InstallReact() = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

type afterRunOnly struct{}

func (afterRunOnly) Run(context.Context, *hooks.State) error { return nil }
func (afterRunOnly) AllowedPoints() []hooks.Point            { return []hooks.Point{hooks.AfterRun} }

// TestReactKeepsExistingRewriter: a rewriter already in the config runs
// first and the hook sees its output.
func TestReactKeepsExistingRewriter(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, toolLoop(0))
	ctx := context.Background()
	cfg := &react.AgentConfig{
		ToolCallingModel: chatModel(t, srv),
		MessageRewriter: func(_ context.Context, msgs []*schema.Message) []*schema.Message {
			return append([]*schema.Message{schema.SystemMessage("from the old rewriter")}, msgs...)
		},
	}
	var sawSystem bool
	if err := InstallReact(ctx, cfg, hooks.Func(func(_ context.Context, s *hooks.State) error {
		sawSystem = s.Messages[0].Role == schema.System
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	a, err := react.NewAgent(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Generate(ctx, []*schema.Message{schema.UserMessage("q")}); err != nil {
		t.Fatal(err)
	}
	if !sawSystem || srv.Requests()[0].System()[0] != "from the old rewriter" {
		t.Errorf("old rewriter did not run before the hook")
	}
}

// TestReactHookFailureSentinelSurvivesGob: the sentinel a failed hook leaves
// in the react agent's messages must survive gob, which Eino's checkpoints
// use, and the model call that reads it back must still fail with the
// hook's error (errors.Is), once; a sentinel read again fails with
// ErrHookFailed. Before, its Extra held a *hookFailure, which gob refuses.
func TestReactHookFailureSentinelSurvivesGob(t *testing.T) {
	t.Parallel()
	hookErr := errors.New("summarizer down")
	srv := openaitest.Start(t, toolLoop(0))
	ctx := context.Background()
	cfg := &react.AgentConfig{ToolCallingModel: chatModel(t, srv)}
	if err := InstallReact(ctx, cfg, hooks.Func(func(context.Context, *hooks.State) error { return hookErr })); err != nil {
		t.Fatal(err)
	}
	out := cfg.MessageRewriter(ctx, []*schema.Message{schema.UserMessage("go")})
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(out); err != nil {
		t.Fatalf("gob cannot encode the messages holding the hook's sentinel: %v", err)
	}
	var back []*schema.Message
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatalf("gob decode: %v", err)
	}
	tests := []struct {
		name   string
		wantIs error
	}{
		{"first call reports the hook's error", hookErr},
		{"a second call reports that a hook failed", ErrHookFailed},
	}
	for _, tt := range tests { // in order: the first call takes the error
		if _, err := cfg.ToolCallingModel.Generate(ctx, back); !errors.Is(err, tt.wantIs) {
			t.Fatalf("%s: Generate error %v, want errors.Is %v", tt.name, err, tt.wantIs)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("provider saw %d requests, want none", n)
	}
}
