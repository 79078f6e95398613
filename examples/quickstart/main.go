// Command quickstart is the README's "Add compaction to an agent", whole: an
// Eino agent with one tool, whose conversation a CompactionHook keeps inside
// the model's context window.
//
//	OPENAI_API_KEY=sk-... go run ./examples/quickstart [--window TOKENS]
//
// from the repository's root: the agent reads the repository's files.
// OPENAI_BASE_URL and OPENAI_MODEL point it at any OpenAI-compatible
// endpoint (default: OpenAI's, model gpt-4o-mini). The window defaults to a
// tiny 3,000 tokens so that a first run shows a compaction; --window (or
// EINOCOMPACT_WINDOW) sets your model's real one. It exits 1 when the agent
// stops without an answer.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaienv"
)

// defaultWindow is deliberately tiny, so that reading a file or two
// compacts; a real model's window is much larger (gpt-4o-mini's: 128,000).
const defaultWindow = 3_000

func main() {
	os.Exit(cli(context.Background(), os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

// cli is main without the process: it reads the flags and the environment,
// runs, and returns the exit code.
func cli(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	window := fs.Int("window", 0, "the model's context window in `tokens` (default $EINOCOMPACT_WINDOW, else 3000)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "window" })
	env, _ := lookup("EINOCOMPACT_WINDOW")
	w, err := windowOf(set, *window, env)
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 2
	}
	// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, read as the fx
	// module reads them. Check and Explain say which one is missing or wrong.
	ep := openaienv.FromEnv(lookup)
	if err := ep.Check(); err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	if err := run(ctx, stdout, ep.BaseURL, ep.APIKey, ep.ModelOrDefault(), w); err != nil {
		fmt.Fprintln(stderr, "quickstart:", ep.Explain(err))
		return 1
	}
	return 0
}

// windowOf is the window --window gave (set), else EINOCOMPACT_WINDOW's,
// else defaultWindow.
func windowOf(set bool, flagValue int, env string) (int, error) {
	switch {
	case set && flagValue <= 0:
		return 0, fmt.Errorf("--window %d: want the model's context window, a positive number of tokens", flagValue)
	case set:
		return flagValue, nil
	case env == "":
		return defaultWindow, nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("EINOCOMPACT_WINDOW=%q: want the model's context window, a positive number of tokens", env)
	}
	return n, nil
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
	compactions := 0
	hook, err := compaction.NewCompactionHook(ctx, &compaction.HookConfig{
		Compactor:     compactor,
		ContextWindow: window,
		// Sees every compaction: what it replaced and what it saved.
		Observer: compaction.ObserverFunc(func(_ context.Context, r compaction.Report) {
			if r.Compacted {
				compactions++
			}
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
	// Only a text answer is one; out of steps, the last message is whatever
	// came last, a tool's result perhaps.
	if res.ExitReason != agent.ExitText {
		return fmt.Errorf("the agent stopped without an answer after %d model calls (exit %q; agent.Config.MaxSteps bounds the calls)",
			res.StepCount, res.ExitReason)
	}
	fmt.Fprintln(out, res.Message.Content)
	if compactions == 0 {
		trigger, _ := hook.Thresholds()
		fmt.Fprintf(out, "no compaction: no model call reached %.0f tokens, 70%% of the %d-token window; a smaller --window shows one\n", trigger, window)
	}

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
