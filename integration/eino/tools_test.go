package einoint

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// recallOnce answers the first request with a recall of ref, the next with
// text, and records whether the first request offered the recall tool.
func recallOnce(ref string, offered *bool) openaitest.Responder {
	return func(r *openaitest.Request) (*openaitest.Reply, error) {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			return openaitest.Text("done"), nil
		}
		*offered = slices.ContainsFunc(r.Tools, func(tl openaitest.Tool) bool { return tl.Function.Name == compaction.RecallToolName })
		args, _ := json.Marshal(map[string]string{"reference": ref})
		return openaitest.Call(openaitest.Fn("r1", compaction.RecallToolName, string(args))), nil
	}
}

// TestMiddlewareOffersRecallScopedToTheRun: with a compaction hook that has
// an archive, the ADK middleware offers the recall tool, which reads the
// run's own conversation's entry and refuses another conversation's.
func TestMiddlewareOffersRecallScopedToTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	archive, err := compaction.NewFileArchive(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := compaction.ArchiveConversation([]*schema.Message{schema.SystemMessage("sys"), schema.UserMessage("my task")})
	ref, err := archive.Put(ctx, mine, []*schema.Message{schema.ToolMessage("the exact output", "c0", schema.WithToolName("lookup"))})
	if err != nil {
		t.Fatal(err)
	}
	slide, _ := compaction.NewSlidingWindowCompactor(ctx, nil)
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: slide, ContextWindow: 1 << 20, Archive: archive,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := NewHookMiddleware(hook, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, task string
		want       error
	}{{"own conversation", "my task", nil}, {"another conversation", "someone else's task", compaction.ErrArchiveScope}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			offered := false
			srv := openaitest.Start(t, recallOnce(ref, &offered))
			out := runADK(t, srv, mw, false, []*schema.Message{schema.UserMessage(tc.task)})
			if !offered {
				t.Fatal("the model was not offered the recall tool")
			}
			if tc.want != nil {
				if !errors.Is(out.err, tc.want) {
					t.Fatalf("run error %v, want %v", out.err, tc.want)
				}
				return
			}
			if out.err != nil {
				t.Fatal(out.err)
			}
			if !slices.ContainsFunc(out.messages, func(m *schema.Message) bool {
				return m.Role == schema.Tool && strings.Contains(m.Content, "the exact output")
			}) {
				t.Fatal("the recall result is not in the run's messages")
			}
		})
	}
}

// TestInstallReactOffersRecall: InstallReact adds the hook's recall tool to
// the react agent's tools, and a recall of a genuine reference reads it.
func TestInstallReactOffersRecall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	archive, err := compaction.NewFileArchive(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := compaction.ArchiveConversation([]*schema.Message{schema.UserMessage("task")})
	ref, err := archive.Put(ctx, conv, []*schema.Message{schema.ToolMessage("the exact output", "c0", schema.WithToolName("lookup"))})
	if err != nil {
		t.Fatal(err)
	}
	slide, _ := compaction.NewSlidingWindowCompactor(ctx, nil)
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: slide, ContextWindow: 1 << 20, Archive: archive,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	offered := false
	srv := openaitest.Start(t, recallOnce(ref, &offered))
	var seen []*schema.Message
	a := newReact(t, srv, hook)
	if _, err := a.Generate(ctx, []*schema.Message{schema.UserMessage("task")}); err != nil {
		t.Fatal(err)
	}
	if !offered {
		t.Fatal("the model was not offered the recall tool")
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				seen = append(seen, schema.ToolMessage(m.Content.Text, m.ToolCallID))
			}
		}
	}
	if !slices.ContainsFunc(seen, func(m *schema.Message) bool { return strings.Contains(m.Content, "the exact output") }) {
		t.Fatal("the recall result never reached the model")
	}
}
