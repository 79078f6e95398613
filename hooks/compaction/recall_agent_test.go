package compaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// rcRef finds an archive reference in text.
var rcRef = regexp.MustCompile(`arc1-cv[0-9a-f]+-[0-9a-f]+-[0-9a-f]+`)

// rcBuildLog is the exact output of the build tool's call n.
func rcBuildLog(n int) string {
	return fmt.Sprintf("build %d failed:\n  main.go:%d:7: undefined: frobnicate%d\n%s", n, 10+n, n, strings.Repeat("compiling package ... ok\n", 60))
}

// TestRecallAfterCompactionInAgentRun: a real agent (eino-ext client over
// HTTP to openaitest) runs a build tool until its conversation is
// summarized; the model then calls recall with the reference the summary
// names and gets back, as a tool result, the exact output of the first
// build, which the summary replaced.
func TestRecallAfterCompactionInAgentRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const summaryText = "The agent ran the build tool; the builds failed."
	var mu sync.Mutex
	recalled := ""
	builds := 0
	intruder := false // the second run: another conversation tries the first's reference
	// The roles the model saw when it called recall, and before the recall
	// result in its next request: the archived text comes back as that one
	// tool message, never as a user or system message.
	var rolesBefore, rolesAfter map[string]int
	respond := func(req *openaitest.Request) (*openaitest.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		if intruder {
			if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
				return openaitest.Text("refused"), nil
			}
			args, _ := json.Marshal(map[string]string{"reference": recalled})
			return openaitest.Call(openaitest.Fn("steal-1", "recall", string(args))), nil
		}
		if len(req.Tools) == 0 { // the summarizer
			return openaitest.Text(summaryText), nil
		}
		last := req.Messages[len(req.Messages)-1]
		if recalled != "" && last.Role == "tool" && last.ToolCallID == "recall-1" {
			rolesAfter = rcRoles(req.Messages[:len(req.Messages)-1])
			return openaitest.Text("recalled"), nil
		}
		for _, m := range req.Messages {
			if ref := rcRef.FindString(m.Content.Text); ref != "" && m.Role == "user" && strings.Contains(m.Content.Text, summaryText) {
				rolesBefore = rcRoles(req.Messages)
				recalled = ref
				args, _ := json.Marshal(map[string]string{"reference": ref, "search": "build 1 failed"})
				return openaitest.Call(openaitest.Fn("recall-1", "recall", string(args))), nil
			}
		}
		if builds >= 12 {
			return openaitest.Text("no compaction happened"), nil
		}
		builds++
		return openaitest.Call(openaitest.Fn(fmt.Sprint("build-", builds), "build", fmt.Sprintf(`{"n":%d}`, builds))), nil
	}
	srv := openaitest.Start(t, openaitest.WithPromptUsage(respond))
	chat, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	build, err := utils.InferTool("build", "Build the project.", func(_ context.Context, in struct {
		N int `json:"n" jsonschema:"description=the build number"`
	}) (string, error) {
		return rcBuildLog(in.N), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	archive, err := compaction.NewFileArchive(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	summarizer, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: chat, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: summarizer, ContextWindow: 3000,
		Archive: archive, Logger: slog.New(slog.DiscardHandler),
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			mu.Lock()
			defer mu.Unlock()
			if r.ArchiveRef != "" {
				refs = append(refs, r.ArchiveRef)
			}
		})})
	if err != nil {
		t.Fatal(err)
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, &agent.Config{Model: chat, Tools: []tool.BaseTool{build}, Instruction: "Fix the build.",
		Hooks: reg, MaxSteps: 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("The build is broken; find out why.")})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	intruder = true
	mu.Unlock()
	other, err := a.Run(ctx, []*schema.Message{schema.UserMessage("Someone else's task.")})
	if err != nil {
		t.Fatal(err)
	}
	stolen := 0
	for _, m := range other.Messages {
		if m.Role == schema.Tool && m.ToolCallID == "steal-1" {
			stolen++
			if !strings.Contains(m.Content, "another conversation") || strings.Contains(m.Content, "frobnicate") {
				t.Fatalf("another conversation recalled the first's reference: %q", m.Content)
			}
		}
	}
	if stolen != 1 {
		t.Fatalf("the second run made %d recall calls, want 1", stolen)
	}
	mu.Lock()
	defer mu.Unlock()
	if recalled == "" || len(refs) == 0 || recalled != refs[0] {
		t.Fatalf("the model recalled %q; the hook archived under %v (after %d builds)", recalled, refs, builds)
	}
	var got *schema.Message
	for _, m := range res.Messages {
		if m.Role == schema.Tool && m.ToolCallID == "recall-1" {
			got = m
		}
		if m.Role == schema.Tool && m.ToolCallID == "build-1" {
			t.Fatal("the first build's output is still in the conversation: nothing was summarized away")
		}
	}
	if got == nil {
		t.Fatal("the conversation holds no result of the recall call")
	}
	if want := rcBuildLog(1); !strings.Contains(got.Content, want) {
		t.Fatalf("recall returned\n%s\nwithout the first build's exact output", got.Content)
	}
	if rolesBefore["user"] == 0 || rolesBefore["user"] != rolesAfter["user"] || rolesBefore["system"] != rolesAfter["system"] {
		t.Fatalf("roles when recall was called %v, before its result %v: the recall added user or system messages", rolesBefore, rolesAfter)
	}
	if strings.Contains(got.Content, "build 2 failed") {
		t.Fatalf("the search for build 1 returned build 2 too:\n%s", got.Content)
	}
}

// rcRoles counts the messages of a request by role.
func rcRoles(msgs []openaitest.Message) map[string]int {
	n := map[string]int{}
	for _, m := range msgs {
		n[m.Role]++
	}
	return n
}
