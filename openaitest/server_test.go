package openaitest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// The tests drive the server with the production eino-ext client, because
// the point of the package is that this client round-trips through it.

func TestGenerateRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name   string
		reply  *Reply
		stream bool
	}{
		{"text", Text("hello there").WithUsage(11, 3), false},
		{"text streamed", Text("hello there, this is long").WithUsage(11, 3), true},
		{"tool calls", Call(Fn("c1", "add", `{"a":1,"b":2}`), Fn("c2", "mul", `{"a":3}`)).WithUsage(20, 7), false},
		{"tool calls streamed", Call(Fn("c1", "add", `{"a":1,"b":2}`), Fn("c2", "mul", `{"a":3}`)).WithUsage(20, 7), true},
		{"no usage streamed", Text("quiet"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, Script(tt.reply), WithChunkSize(4))
			cm, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			in := []*schema.Message{schema.SystemMessage("sys"), schema.UserMessage("question")}
			var got *schema.Message
			if tt.stream {
				sr, err := cm.Stream(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				var chunks []*schema.Message
				for {
					c, err := sr.Recv()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					chunks = append(chunks, c)
				}
				if len(chunks) < 2 {
					t.Fatalf("got %d chunks, want several", len(chunks))
				}
				if got, err = schema.ConcatMessages(chunks); err != nil {
					t.Fatal(err)
				}
			} else if got, err = cm.Generate(ctx, in); err != nil {
				t.Fatal(err)
			}

			if got.Content != tt.reply.Content {
				t.Errorf("content = %q, want %q", got.Content, tt.reply.Content)
			}
			if len(got.ToolCalls) != len(tt.reply.ToolCalls) {
				t.Fatalf("tool calls = %+v, want %+v", got.ToolCalls, tt.reply.ToolCalls)
			}
			for i, tc := range got.ToolCalls {
				w := tt.reply.ToolCalls[i]
				if tc.ID != w.ID || tc.Function.Name != w.Function.Name || tc.Function.Arguments != w.Function.Arguments {
					t.Errorf("tool call %d = %+v, want %+v", i, tc, w)
				}
			}
			var gotTotal int
			if got.ResponseMeta != nil && got.ResponseMeta.Usage != nil {
				u := got.ResponseMeta.Usage
				gotTotal = u.PromptTokens + u.CompletionTokens
			}
			wantTotal := 0
			if tt.reply.Usage != nil {
				wantTotal = tt.reply.Usage.TotalTokens
			}
			if gotTotal != wantTotal {
				t.Errorf("usage prompt+completion = %d, want %d", gotTotal, wantTotal)
			}

			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Stream != tt.stream || (tt.stream && !r.IncludeUsage) {
				t.Errorf("stream=%v include_usage=%v, want stream=%v with usage", r.Stream, r.IncludeUsage, tt.stream)
			}
			if !strings.Contains(r.PromptText(), "user: question") || len(r.System()) != 1 {
				t.Errorf("recorded prompt = %q", r.PromptText())
			}
		})
	}
}

func TestServerRejectsOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := Start(t, Script(Text("unreachable")))
	cm, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orphan := []*schema.Message{
		schema.UserMessage("q"),
		schema.ToolMessage("42", "call_gone", schema.WithToolName("add")),
	}
	if _, err := cm.Generate(ctx, orphan); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("Generate with orphan = %v, want an HTTP 400 error", err)
	}
	if n := len(srv.Rejected()); n != 1 {
		t.Fatalf("Rejected() has %d requests, want 1", n)
	}
	// The script was not consumed by the rejected request.
	if got, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage("q")}); err != nil || got.Content != "unreachable" {
		t.Fatalf("next Generate = %v, %v", got, err)
	}
}

func TestScriptExhaustedAndErrorReplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := Start(t, Script(&Reply{Status: 429, ErrorMessage: "slow down"}))
	cm, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{schema.UserMessage("q")}
	if _, err := cm.Generate(ctx, in); err == nil || !strings.Contains(err.Error(), "slow down") {
		t.Fatalf("first Generate = %v, want the scripted 429", err)
	}
	if _, err := cm.Generate(ctx, in); err == nil || !strings.Contains(err.Error(), "script exhausted") {
		t.Fatalf("second Generate = %v, want script exhausted", err)
	}
}

func TestWithPromptUsageTracksPromptSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := Start(t, WithPromptUsage(func(*Request) (*Reply, error) { return Text("ok"), nil }))
	cm, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(n int) int {
		msg, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage(strings.Repeat("x", n))})
		if err != nil {
			t.Fatal(err)
		}
		return msg.ResponseMeta.Usage.PromptTokens
	}
	small, large := prompt(40), prompt(4000)
	if small <= 0 || large < small+900 {
		t.Fatalf("prompt tokens small=%d large=%d, want large to grow with the prompt", small, large)
	}
}
