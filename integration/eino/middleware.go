package einoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// Run-local keys the middleware keeps in the ADK run's state. Values are ints
// and bools, which ADK can checkpoint.
const (
	keySteps         = "einocompact.steps"
	keyCompactedUpTo = "einocompact.compacted_len"
	// keyLastReply is when the run's previous model reply arrived, in Unix
	// nanoseconds (an int, so that ADK can checkpoint it).
	keyLastReply = "einocompact.last_reply_unix_nano"
)

// ErrStopped is returned (wrapped) as the run error when a before_llm hook set
// hooks.State.StopRun: an ADK ChatModelAgent has no other way to end a run
// from a middleware.
var ErrStopped = errors.New("einoint: run stopped by a hook")

// ErrSkippedByHook is the text of a tool result the middleware substitutes
// when a before_tool hook cleared the pending call: the model still gets an
// answer for every call it made, as providers require.
const ErrSkippedByHook = "tool call skipped by a hook"

// Middleware runs a hooks.Registry inside an ADK ChatModelAgent. Install it
// in adk.ChatModelAgentConfig.Handlers.
//
// Where each point runs:
//
//   - before_run: in the first BeforeModelRewriteState of a run, before
//     before_llm, with the run's initial messages.
//   - before_llm: in every BeforeModelRewriteState. State.Messages and
//     State.Tools written by hooks replace the ADK state's Messages and
//     ToolInfos, so a compaction persists for the rest of the run. A hook
//     error aborts the run with that error; StopRun aborts it with ErrStopped.
//   - before_tool / after_tool: around each tool call, in
//     WrapInvokableToolCall. ADK gives tool wrappers no access to the
//     conversation, so State.Messages is empty at before_tool and holds just
//     the tool's result message at after_tool; a hook may replace that
//     message to change the result. Clearing State.PendingToolCalls skips the
//     tool and answers ErrSkippedByHook.
//   - after_run: in AfterAgent, with the final messages. ADK calls it only
//     after a successful run.
//   - on_exit: not run; ADK ends a run on the first text answer and offers no
//     way to continue it.
//
// State.ContextTokens comes from the provider usage on the last assistant
// message (see ContextTokens), with two guards: usage recorded before a
// compaction this middleware applied in the same run is ignored, and so is a
// reply followed by a compaction marker. State.StepCount counts the run's
// model calls so far; State.LastModelCallAt is when the run's previous
// model reply arrived (zero at a run's first call: an ADK run keeps nothing
// of the runs before it, and a before_run hook may set it from the
// application's records). State.Values lives for one hook point only, since ADK
// can only keep checkpointable values across a run.
//
// Hooks run with callbacks isolated from the agent's (IsolateCallbacks), so a
// summarizer's call never reaches the agent's handlers or its event stream.
// One Middleware may serve many agents and runs at once.
type Middleware struct {
	*adk.BaseChatModelAgentMiddleware
	reg    *hooks.Registry
	logger *slog.Logger
}

// NewMiddleware returns a middleware running reg; logger (nil: slog.Default())
// receives configuration warnings. A nil reg is an error: a middleware that
// does nothing is more likely a wiring mistake.
func NewMiddleware(reg *hooks.Registry, logger *slog.Logger) (*Middleware, error) {
	if reg == nil {
		return nil, errors.New("einoint: NewMiddleware: nil *hooks.Registry")
	}
	if logger == nil {
		logger = slog.Default()
	}
	if reg.Len(hooks.OnExit) > 0 {
		logger.Warn("einoint: on_exit hooks are registered but an ADK ChatModelAgent cannot run them", "hooks", reg.Len(hooks.OnExit))
	}
	return &Middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, reg: reg, logger: logger}, nil
}

// NewHookMiddleware returns a middleware running a single hook before every
// model call: the usual way to add a compaction.CompactionHook.
func NewHookMiddleware(hook hooks.Hook, logger *slog.Logger) (*Middleware, error) {
	reg := hooks.NewRegistry()
	if err := reg.Register(hooks.BeforeLLM, hook); err != nil {
		return nil, fmt.Errorf("einoint: NewHookMiddleware: %w", err)
	}
	return NewMiddleware(reg, logger)
}

// Registry returns the registry the middleware runs, for lifecycle wiring
// (WarmUp, Close) by the application.
func (m *Middleware) Registry() *hooks.Registry { return m.reg }

func runLocalInt(ctx context.Context, key string) int {
	v, ok, err := adk.GetRunLocalValue(ctx, key)
	if err != nil || !ok {
		return 0
	}
	n, _ := v.(int)
	return n
}

// BeforeModelRewriteState runs before_run (first call of a run only) and
// before_llm, and writes the hooks' messages and tools back into the state.
func (m *Middleware) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	steps := runLocalInt(ctx, keySteps)
	hs := &hooks.State{
		Messages:        slices.Clone(state.Messages),
		Tools:           slices.Clone(state.ToolInfos),
		ContextTokens:   m.contextTokens(ctx, state.Messages),
		StepCount:       steps,
		LastModelCallAt: lastReplyAt(ctx),
		Values:          map[string]any{},
	}
	hctx := IsolateCallbacks(ctx, "einocompact.hooks")
	if steps == 0 {
		if err := m.reg.Run(hctx, hooks.BeforeRun, hs); err != nil {
			return ctx, state, fmt.Errorf("einoint: %w", err)
		}
	}
	if err := m.reg.Run(hctx, hooks.BeforeLLM, hs); err != nil {
		return ctx, state, fmt.Errorf("einoint: %w", err)
	}
	if hs.StopRun {
		return ctx, state, fmt.Errorf("einoint: at %s: %w", hooks.BeforeLLM, ErrStopped)
	}
	if err := adk.SetRunLocalValue(ctx, keySteps, steps+1); err != nil {
		return ctx, state, fmt.Errorf("einoint: %w", err)
	}
	if !slices.Equal(hs.Messages, state.Messages) {
		// Retained replies now carry usage of a prompt that no longer
		// exists; remember where the rewritten conversation ends.
		if err := adk.SetRunLocalValue(ctx, keyCompactedUpTo, len(hs.Messages)); err != nil {
			return ctx, state, fmt.Errorf("einoint: %w", err)
		}
	}
	noteConversation(ctx, hs.Messages)
	out := *state
	out.Messages = hs.Messages
	out.ToolInfos = hs.Tools
	return ctx, &out, nil
}

// AfterModelRewriteState records when the model's reply arrived, for the
// next call's State.LastModelCallAt; the state is left as it is.
func (m *Middleware) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if err := adk.SetRunLocalValue(ctx, keyLastReply, int(time.Now().UnixNano())); err != nil {
		return ctx, state, fmt.Errorf("einoint: %w", err)
	}
	return ctx, state, nil
}

// lastReplyAt is the time AfterModelRewriteState recorded in this run, or
// the zero time.
func lastReplyAt(ctx context.Context) time.Time {
	if n := runLocalInt(ctx, keyLastReply); n != 0 {
		return time.Unix(0, int64(n))
	}
	return time.Time{}
}

// contextTokens is ContextTokens plus the run-local guard: a last assistant
// message inside the conversation as this middleware last rewrote it
// predates that rewrite.
func (m *Middleware) contextTokens(ctx context.Context, msgs []*schema.Message) int {
	upTo := runLocalInt(ctx, keyCompactedUpTo)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i] != nil && msgs[i].Role == schema.Assistant {
			if i < upTo {
				return 0
			}
			break
		}
	}
	return ContextTokens(msgs)
}

// WrapInvokableToolCall runs before_tool and after_tool around one call, and
// scopes it to the run's conversation for hooks that ask (hooks.ToolScoper).
func (m *Middleware) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, tCtx *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	if m.reg.Len(hooks.BeforeTool) == 0 && m.reg.Len(hooks.AfterTool) == 0 {
		if m.reg.HasToolScopers() {
			return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
				return endpoint(m.scopeToolCall(ctx), args, opts...)
			}, nil
		}
		return endpoint, nil
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		ctx = m.scopeToolCall(ctx)
		steps := runLocalInt(ctx, keySteps)
		hctx := IsolateCallbacks(ctx, "einocompact.hooks")
		call := schema.ToolCall{ID: tCtx.CallID, Type: "function", Function: schema.FunctionCall{Name: tCtx.Name, Arguments: args}}
		hs := &hooks.State{PendingToolCalls: []schema.ToolCall{call}, StepCount: steps - 1, Values: map[string]any{}}
		if err := m.reg.Run(hctx, hooks.BeforeTool, hs); err != nil {
			return "", fmt.Errorf("einoint: %w", err)
		}
		result := ErrSkippedByHook
		if i := slices.IndexFunc(hs.PendingToolCalls, func(c schema.ToolCall) bool { return c.ID == call.ID }); i >= 0 {
			var err error
			if result, err = endpoint(ctx, hs.PendingToolCalls[i].Function.Arguments, opts...); err != nil {
				return "", err
			}
		}
		hs.PendingToolCalls = nil
		hs.Messages = []*schema.Message{schema.ToolMessage(result, call.ID, schema.WithToolName(call.Function.Name))}
		hs.ToolCallCounts = map[string]int{call.Function.Name: 1}
		if err := m.reg.Run(hctx, hooks.AfterTool, hs); err != nil {
			return "", fmt.Errorf("einoint: %w", err)
		}
		if n := len(hs.Messages); n > 0 && hs.Messages[n-1] != nil && hs.Messages[n-1].Role == schema.Tool {
			result = hs.Messages[n-1].Content
		}
		return result, nil
	}, nil
}

// AfterAgent runs after_run with the final conversation. Changes hooks make
// are not written back: the run is over.
func (m *Middleware) AfterAgent(ctx context.Context, state *adk.ChatModelAgentState) (context.Context, error) {
	if m.reg.Len(hooks.AfterRun) == 0 {
		return ctx, nil
	}
	hs := &hooks.State{
		Messages:      slices.Clone(state.Messages),
		Tools:         slices.Clone(state.ToolInfos),
		ContextTokens: m.contextTokens(ctx, state.Messages),
		StepCount:     runLocalInt(ctx, keySteps),
		ExitReason:    "text",
		Values:        map[string]any{},
	}
	if err := m.reg.Run(IsolateCallbacks(ctx, "einocompact.hooks"), hooks.AfterRun, hs); err != nil {
		return ctx, fmt.Errorf("einoint: %w", err)
	}
	return ctx, nil
}
