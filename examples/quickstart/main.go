// Command quickstart is the README's "Add compaction to an agent", whole: an
// Eino agent with one tool, whose conversation a CompactionHook keeps inside
// the model's context window.
//
//	OPENAI_API_KEY=sk-... go run ./examples/quickstart
//
// from the repository's root: the agent reads the repository's files.
// OPENAI_BASE_URL and OPENAI_MODEL point it at any OpenAI-compatible
// endpoint (default: OpenAI's, model gpt-4o-mini).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaienv"
)

func main() {
	// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, read as the fx
	// module reads them. Check and Explain say which one is missing or wrong.
	ep := openaienv.FromEnv(os.LookupEnv)
	if err := ep.Check(); err != nil {
		log.Fatal(err)
	}
	err := run(context.Background(), os.Stdout, ep.BaseURL, ep.APIKey, ep.ModelOrDefault(), 128_000)
	if err != nil {
		log.Fatal(ep.Explain(err))
	}
}

// run asks an agent that can read the files of the current directory what
// examples/quickstart/main.go does, and writes what happened to out. window
// is the model's context window, in tokens.
func run(ctx context.Context, out io.Writer, baseURL, apiKey, model string, window int) error {
	// The agent's model. An empty BaseURL means OpenAI's.
	chatModel, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: baseURL, APIKey: apiKey, Model: model})
	if err != nil {
		return err
	}

	// A tool: utils.InferTool derives its JSON schema from the input struct.
	// Its error (a wrong path, say) is the call's result: the model reads
	// "error: ..." and can try another path.
	type readFileInput struct {
		Path string `json:"path" jsonschema:"description=a path relative to the current directory"`
	}
	readFile, err := utils.InferTool("read_file", "Read a file of the current directory.",
		func(_ context.Context, in readFileInput) (string, error) {
			if !filepath.IsLocal(in.Path) {
				return "", fmt.Errorf("%q is not inside the current directory", in.Path)
			}
			data, err := os.ReadFile(in.Path)
			return string(data), err
		})
	if err != nil {
		return err
	}

	// Compaction: summaries written by a chat model (any model.BaseChatModel;
	// the agent's own here, a smaller one is fine), once a model call would
	// reach 70% of the window, down to 40% of it. The summarizer is the
	// agent's model, so it gets the agent's request as sent plus one
	// instruction (CacheAligned), which the provider's prompt cache serves;
	// a separate summarizer model would keep the transcript request.
	compactor, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel:    chatModel,
		CacheAligned: true,
	})
	if err != nil {
		return err
	}
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     compactor,
		ContextWindow: window,
		// Sees every compaction: what it replaced and what it saved.
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			fmt.Fprintf(out, "compaction before step %d: %d -> %d messages, %d -> %d tokens, %d summarizer rounds\n",
				r.BeforeStep(), r.MessagesBefore, r.MessagesAfter, r.TokensBefore, r.TokensAfter, len(r.Rounds))
		}),
	})
	if err != nil {
		return err
	}
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		return err
	}

	a, err := agent.New(ctx, &agent.Config{
		Model:       chatModel,
		Tools:       []tool.BaseTool{readFile},
		Instruction: "You are a careful engineer. Read files with the read_file tool before you answer; paths are relative to the repository's root.",
		Hooks:       reg,
	})
	if err != nil {
		return err
	}
	res, err := a.Run(ctx, []*schema.Message{schema.UserMessage("What does examples/quickstart/main.go do?")})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, res.Message.Content)

	// res.Messages is the conversation after compaction: send it, plus the
	// next user message, on the next turn. Summaries carry a marker.
	summaries := 0
	for _, m := range res.Messages {
		if compaction.IsStrategy(m, compaction.StrategySummarization) {
			summaries++
		}
	}
	fmt.Fprintf(out, "%d messages in the history, %d of them summaries\n", len(res.Messages), summaries)
	return nil
}
