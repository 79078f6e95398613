package main

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/fx"

	"github.com/einocompact/einocompact/agent"
	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	compactfx "github.com/einocompact/einocompact/integration/fx"
	"github.com/einocompact/einocompact/integration/inspect"
)

// The sample workspace lives under testdata so that the go tool does not
// build its Go files as part of this module.
//
//go:embed testdata/workspace
var bundledWorkspace embed.FS

//go:embed trajectory/inc-2291.json
var bundledTrajectory []byte

const defaultInstruction = `You are a careful software engineer investigating a repository that you can only read through your tools (list_files, read_file, search). Work in small steps: call one tool at a time, and say in a sentence what you learned and what you will check next. Cite exact file paths and line numbers. When you can answer, reply with the answer and call no tool.`

// output is where the app writes its report.
type output struct {
	w     io.Writer
	quiet bool
}

// appOptions returns the fx options of the whole application: the einocompact
// module built from cfg, the demo's workspace, tools, agent model and agent,
// and the hooks feeding the step report.
func appOptions(cfg *appConfig, out output, log *slog.Logger) fx.Option {
	// Every summarizer request goes to the run's reporter, for the bill;
	// --summarizer-latency slows each down.
	decorate := fx.Decorate(func(s compactfx.Summarizer) compactfx.Summarizer {
		if cfg.summarizerLatency > 0 {
			s = slowSummarizer{s, cfg.summarizerLatency}
		}
		return recordingSummarizer{s}
	})
	return fx.Options(
		fx.Supply(cfg, out, log),
		compactfx.WithSlogEventLogger(),
		compactfx.Module(&cfg.Config),
		decorate,
		fx.Provide(
			newWorkspace,
			newTools,
			newAgentModel,
			newAgent,
			newRunner,
			fx.Annotate(reportHooks, fx.ResultTags(`group:"`+compactfx.HookGroup+`,flatten"`)),
		),
	)
}

func newWorkspace(cfg *appConfig) (fs.FS, error) {
	if cfg.Demo.Workspace != "" {
		return os.DirFS(cfg.Demo.Workspace), nil
	}
	return fs.Sub(bundledWorkspace, "testdata/workspace")
}

func newTools(ws fs.FS) ([]tool.BaseTool, error) { return workspaceTools(ws) }

// agentModel is the agent's chat model and what the app knows about it.
type agentModel struct {
	model.ToolCallingChatModel
	name string
	// task is the trajectory's task: the default request, and with replay
	// the only one the model can answer.
	task   string
	replay bool
}

// newAgentModel returns the configured endpoint's client when there is one,
// with its warm-up and close tied to the app's lifecycle; otherwise the
// offline replay of the bundled (or configured) trajectory.
func newAgentModel(lc fx.Lifecycle, cfg *appConfig, hook *compaction.CompactionHook) (*agentModel, error) {
	data := bundledTrajectory
	if cfg.Demo.Trajectory != "" {
		var err error
		if data, err = os.ReadFile(cfg.Demo.Trajectory); err != nil {
			return nil, fmt.Errorf("config: demo.trajectory = %q: %w", cfg.Demo.Trajectory, err)
		}
	}
	t, err := parseTrajectory(data)
	if err != nil {
		return nil, err
	}
	if cfg.online() {
		m, err := compactfx.NewEndpointModel(context.Background(), cfg.Model)
		if err != nil {
			return nil, err
		}
		lc.Append(fx.Hook{OnStart: m.WarmUp, OnStop: m.Close})
		return &agentModel{ToolCallingChatModel: m, name: fmt.Sprintf("%s at %s", cfg.Model.Model, compactfx.RedactURL(cfg.Model.BaseURL)), task: t.Task}, nil
	}
	name := fmt.Sprintf("offline replay of %s; set OPENAI_BASE_URL to use a live model", t.describe())
	replay := newReplayModel(t)
	replay.delay = cfg.modelLatency
	if cfg.summarizerLatency == 0 {
		// The offline summarizer answers at once, so a compaction
		// prepared in the background is as good as written by the next
		// model call; whether it is in fact finished there would depend
		// on goroutine scheduling, and so would the report. The replay
		// waits for it before each reply, so the demo prints the same
		// every run. With --summarizer-latency it does not: calls go out
		// while the summary is written, as with a hosted summarizer.
		replay.settle = hook.WaitPrepared
	}
	return &agentModel{ToolCallingChatModel: replay, name: name, task: t.Task, replay: true}, nil
}

func newAgent(cfg *appConfig, m *agentModel, tools []tool.BaseTool, reg *hooks.Registry, log *slog.Logger) (*agent.Agent, error) {
	instruction := cfg.Agent.Instruction
	if instruction == "" {
		instruction = defaultInstruction
	}
	return agent.New(context.Background(), &agent.Config{
		Model:       m,
		Tools:       tools,
		Instruction: instruction,
		Hooks:       reg,
		MaxSteps:    cfg.Agent.MaxSteps,
		Name:        "fx-app",
		Logger:      log,
	})
}

// reportHooks feeds the per-run reporter found in the run's context. They
// keep no state themselves, so one registry could serve many runs.
func reportHooks() []compactfx.HookEntry {
	replied := hooks.Func(func(ctx context.Context, st *hooks.State) error {
		if r := reporterFrom(ctx); r != nil {
			r.modelReplied(ctx, st)
		}
		return nil
	})
	return []compactfx.HookEntry{
		{Point: hooks.BeforeLLM, Order: compactfx.OrderCompaction - 1, Name: "report.pre", Hook: hooks.Func(func(ctx context.Context, st *hooks.State) error {
			if r := reporterFrom(ctx); r != nil {
				r.beforeCompaction(st.Messages)
			}
			return nil
		})},
		{Point: hooks.BeforeLLM, Order: compactfx.OrderCompaction + 1, Name: "report.post", Hook: hooks.Func(func(ctx context.Context, st *hooks.State) error {
			if r := reporterFrom(ctx); r != nil {
				r.afterCompaction(st.Messages)
			}
			return nil
		})},
		{Point: hooks.BeforeRun, Name: "report.start", Hook: hooks.Func(func(ctx context.Context, st *hooks.State) error {
			if r := reporterFrom(ctx); r != nil {
				r.start(st.Messages)
			}
			return nil
		})},
		{Point: hooks.BeforeTool, Name: "report.step", Hook: replied},
		{Point: hooks.OnExit, Name: "report.step", Hook: replied},
		{Point: hooks.AfterTool, Name: "report.tools", Hook: hooks.Func(func(ctx context.Context, st *hooks.State) error {
			if r := reporterFrom(ctx); r != nil {
				r.toolsRan(st)
			}
			return nil
		})},
	}
}

// runner runs the task once and reports.
type runner struct {
	cfg     *appConfig
	agent   *agent.Agent
	model   *agentModel
	hook    *compaction.CompactionHook
	counter compaction.TokenCounter
	out     output
	// recorder is the compaction inspector's, nil unless inspect.enabled
	// (--html turns it on).
	recorder *inspect.Recorder
}

type runnerIn struct {
	fx.In
	Cfg      *appConfig
	Agent    *agent.Agent
	Model    *agentModel
	Hook     *compaction.CompactionHook
	Counter  compaction.TokenCounter
	Out      output
	Recorder *inspect.Recorder
}

func newRunner(in runnerIn) *runner {
	return &runner{cfg: in.Cfg, agent: in.Agent, model: in.Model, hook: in.Hook, counter: in.Counter, out: in.Out, recorder: in.Recorder}
}

// task is the user's request: the configured one, else the trajectory's.
func (r *runner) task() (string, error) {
	t := r.cfg.Demo.Task
	switch {
	case t == "":
		return r.model.task, nil
	case r.model.replay && t != r.model.task:
		return "", fmt.Errorf("config: demo.task = %q: offline replay can only run its trajectory's task; set OPENAI_BASE_URL for a live model", t)
	}
	return t, nil
}

// run runs the task, printing as it goes, and returns the result and the
// run's report.
func (r *runner) run(ctx context.Context) (*agent.Result, *reporter, error) {
	task, err := r.task()
	if err != nil {
		return nil, nil, err
	}
	rep := &reporter{out: r.out.w, quiet: r.out.quiet, counter: r.counter}
	trigger, target := r.hook.Thresholds()
	c := r.cfg.Compaction
	if !r.out.quiet {
		fmt.Fprintf(r.out.w, "einocompact fx-app: %s\n", r.model.name)
		prepared := ", each compaction waited for"
		if c.PrepareAt > 0 {
			prepared = fmt.Sprintf(", prepared in the background from %.0f (%.2f)", c.PrepareAt*float64(c.ContextWindow), c.PrepareAt)
		}
		fmt.Fprintf(r.out.w, "compaction: strategy %s, window %d, compact at %.0f tokens (%.2f), down to %d (%.2f)%s; summarizer: %s%s\n",
			c.Strategy, c.ContextWindow, trigger, c.CompactAt, target, c.CompactTo, prepared, compactfx.SummarizerName(&r.cfg.Config),
			onlyIf(r.cfg.summarizerLatency > 0, fmt.Sprintf(", %s per call (--summarizer-latency)", r.cfg.summarizerLatency)))
		fmt.Fprintf(r.out.w, "task: %s\n\n", task)
		legend(r.out.w, r.model.replay, r.offlineSummarizer())
	}
	start := time.Now()
	ctx = compactfx.WithObserver(withReporter(ctx, rep), rep)
	if r.recorder != nil {
		ctx = inspect.WithConversation(ctx, inspectConversation)
	}
	res, err := r.agent.Run(ctx, []*schema.Message{schema.UserMessage(task)})
	if err != nil {
		return nil, rep, err
	}
	if !r.out.quiet {
		fmt.Fprintf(r.out.w, "\nanswer:\n%s\n", indent(strings.TrimSpace(res.Message.Content)))
	}
	var compared *comparison
	if r.offlineSummarizer() {
		// Eino's middleware gets the offline summarizer; next to a run
		// whose summaries a model wrote, that would compare summarizers.
		if compared, err = rep.compare(ctx, c.ContextWindow, c.CompactAt); err != nil {
			return nil, rep, fmt.Errorf("comparing with Eino's middleware: %w", err)
		}
	}
	rep.summary(r.out.w, runSummary{compared: compared,
		model: r.model.name, summarizer: compactfx.SummarizerName(&r.cfg.Config), exit: res.ExitReason,
		replay: r.model.replay, offlineSummarizer: r.offlineSummarizer(), fallbackOffline: r.cfg.Summarizer.FallbackOffline,
		window: c.ContextWindow, trigger: trigger, target: target, toolCalls: res.ToolCallCounts, elapsed: time.Since(start),
	})
	return res, rep, nil
}

// offlineSummarizer reports whether every summary comes from the offline
// extractive summarizer, whose token usage is its own count, not a model's.
func (r *runner) offlineSummarizer() bool {
	_, online := r.cfg.SummarizerEndpoint()
	return !online
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
