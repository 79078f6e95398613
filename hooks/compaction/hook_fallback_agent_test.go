package compaction_test

import (
	"context"
	"fmt"
	"log/slog"
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

// fbProvider is a chat-completions provider with a context length: it
// counts a prompt its own way (a token per four bytes of text, plus four
// tokens of framing a message and three to prime the reply, as OpenAI's
// models do), answers a prompt above window with OpenAI's context-length
// error, HTTP 400, and otherwise replies with next, reporting its count as
// the usage.
type fbProvider struct {
	window int
	next   openaitest.Responder

	mu       sync.Mutex
	largest  int      // the largest prompt accepted
	rejected []string // the context-length errors sent
}

func (p *fbProvider) count(req *openaitest.Request) int {
	return req.ApproxPromptTokens() + 4*len(req.Messages) + 3
}

func (p *fbProvider) respond(req *openaitest.Request) (*openaitest.Reply, error) {
	n := p.count(req)
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.window {
		msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", p.window, n)
		p.rejected = append(p.rejected, msg)
		return &openaitest.Reply{Status: 400, ErrorMessage: msg}, nil
	}
	p.largest = max(p.largest, n)
	r, err := p.next(req)
	if err != nil {
		return nil, err
	}
	return r.WithUsage(n, 20), nil
}

// TestAgentNeverHitsTheContextLengthWhileAnythingCanBeRemoved: a real agent
// (the eino-ext OpenAI client over HTTP to a provider that rejects prompts
// above its 3,000-token window, counting them a little differently than
// the hook) fetches twelve pages of about 300 tokens each. Its
// SummarizationCompactor's summarizer echoes what it is sent, so its
// summaries are never smaller: the first compaction fails, and once the
// compactor has learned the summary size it declines without calling the
// summarizer. Whatever the compactor says, the model-free fallback keeps
// every prompt the provider sees within its window (it prunes old pages),
// and the run answers. Without the fallback the same run dies on the
// provider's context-length error, so the run tests what it claims.
func TestAgentNeverHitsTheContextLengthWhileAnythingCanBeRemoved(t *testing.T) {
	t.Parallel()
	const window, pages = 3000, 12
	for _, disable := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableFallback=%v", disable), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var replies []*openaitest.Reply
			for i := range pages {
				replies = append(replies, openaitest.Call(openaitest.Fn(fmt.Sprintf("c%d", i), "fetch", fmt.Sprintf(`{"page":%d}`, i))))
			}
			replies = append(replies, openaitest.Text("all pages read"))
			provider := &fbProvider{window: window, next: openaitest.Script(replies...)}
			chat, err := openaitest.Start(t, provider.respond).ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			echo := openaitest.Start(t, openaitest.WithPromptUsage(func(req *openaitest.Request) (*openaitest.Reply, error) {
				return openaitest.Text(req.PromptText()), nil
			}))
			sumModel, err := echo.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			fetch, err := utils.InferTool("fetch", "Fetch one page of the report.",
				func(_ context.Context, in struct {
					Page int `json:"page" jsonschema:"description=the page number"`
				}) (string, error) {
					return strings.Repeat(fmt.Sprintf("page %d line of findings; ", in.Page), 45), nil
				})
			if err != nil {
				t.Fatal(err)
			}
			quiet := slog.New(slog.DiscardHandler)
			comp, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: sumModel, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var reports []compaction.Report
			hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{Compactor: comp, ContextWindow: window,
				Logger: quiet, DisableFallback: disable,
				Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
					mu.Lock()
					defer mu.Unlock()
					reports = append(reports, r)
				})})
			if err != nil {
				t.Fatal(err)
			}
			reg := hooks.NewRegistry()
			if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
				t.Fatal(err)
			}
			a, err := agent.New(ctx, &agent.Config{Model: chat, Tools: []tool.BaseTool{fetch}, Instruction: "Read every page, then answer.",
				Hooks: reg, MaxSteps: pages + 1, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			res, runErr := a.Run(ctx, []*schema.Message{schema.UserMessage("Summarize the report.")})

			mu.Lock()
			defer mu.Unlock()
			provider.mu.Lock()
			defer provider.mu.Unlock()
			if disable {
				if runErr == nil || len(provider.rejected) == 0 || !strings.Contains(runErr.Error(), "maximum context length") {
					t.Fatalf("Run = %v with %d prompts rejected; want the provider's context-length error", runErr, len(provider.rejected))
				}
				return
			}
			if runErr != nil || len(provider.rejected) > 0 {
				t.Fatalf("Run = %v; context-length errors: %q", runErr, provider.rejected)
			}
			if res.Message == nil || res.Message.Content != "all pages read" {
				t.Fatalf("final answer %v, want the scripted one", res.Message)
			}
			var failed, declined, fellBack int
			for _, r := range reports {
				switch {
				case r.Err != nil:
					failed++
				case r.Triggered && len(r.Rounds) == 0 && !r.BackedOff:
					declined++
				}
				if r.Fallback != "" {
					fellBack++
				}
			}
			if failed == 0 || declined == 0 || fellBack == 0 {
				t.Fatalf("%d compactions failed, %d declined without a summarizer call, %d fell back; the run must show each", failed, declined, fellBack)
			}
			t.Logf("largest prompt %d of %d tokens; %d compactions failed, %d declined, %d fell back", provider.largest, window, failed, declined, fellBack)
		})
	}
}
