package einoint

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// failureKey marks the sentinel message a failed hook leaves in the react
// agent's state. Its value is a *hookFailure, which only this package makes.
const failureKey = "einocompact.hook_failure"

type hookFailure struct{ err error }

// InstallReact makes hook run before every model call of the react agent
// built from cfg, as its MessageRewriter, with the messages accumulated in the
// run and the tool schemas of cfg.ToolsConfig.Tools (read here, once, since
// the rewriter sees no tools). Call it before react.NewAgent, once per
// config. An existing MessageRewriter runs first.
//
// The hook's rewrite of State.Messages persists for the rest of the run,
// which is what compaction needs. State.ContextTokens comes from the last
// reply's usage (see ContextTokens); State.StepCount is the number of model
// replies since the last user message.
//
// A MessageRewriter cannot return an error, and a panic in one reaches the
// caller as an opaque string. So when the hook fails (or panics, or sets
// StopRun, reported as ErrStopped), the rewriter returns the conversation
// plus a sentinel message carrying the error, and InstallReact wraps
// cfg.ToolCallingModel so that a call whose input holds that sentinel returns
// the error instead of reaching the provider. The model call is the very next
// thing the react graph does, so the run fails with the hook's error, wrapped
// so that errors.Is finds it, and nothing is sent to the provider.
//
// The hook runs under IsolateCallbacks: a summarizer it calls is invisible to
// the agent's callbacks and to react.WithMessageFuture.
func InstallReact(ctx context.Context, cfg *react.AgentConfig, hook hooks.Hook) error {
	if cfg == nil {
		return errors.New("einoint: InstallReact: nil *react.AgentConfig")
	}
	if hook == nil {
		return errors.New("einoint: InstallReact: nil hook")
	}
	if cfg.ToolCallingModel == nil {
		return errors.New("einoint: InstallReact: AgentConfig.ToolCallingModel is required (the deprecated Model field cannot be wrapped)")
	}
	if _, ok := cfg.ToolCallingModel.(*failingModel); ok {
		return errors.New("einoint: InstallReact: config already has a hook installed; use a hooks.Registry to run several")
	}
	if pl, ok := hook.(hooks.PointLimiter); ok && !slices.Contains(pl.AllowedPoints(), hooks.BeforeLLM) {
		return fmt.Errorf("einoint: InstallReact: %s cannot run at %s", hooks.HookName(hook), hooks.BeforeLLM)
	}
	infos := make([]*schema.ToolInfo, 0, len(cfg.ToolsConfig.Tools))
	for i, t := range cfg.ToolsConfig.Tools {
		if t == nil {
			return fmt.Errorf("einoint: InstallReact: ToolsConfig.Tools[%d] is nil", i)
		}
		info, err := t.Info(ctx)
		if err != nil {
			return fmt.Errorf("einoint: InstallReact: ToolsConfig.Tools[%d].Info: %w", i, err)
		}
		infos = append(infos, info)
	}
	prev := cfg.MessageRewriter
	cfg.MessageRewriter = func(ctx context.Context, msgs []*schema.Message) []*schema.Message {
		if prev != nil {
			msgs = prev(ctx, msgs)
		}
		return rewrite(ctx, hook, msgs, infos)
	}
	cfg.ToolCallingModel = &failingModel{inner: cfg.ToolCallingModel}
	return nil
}

// rewrite runs hook on a copy of msgs; see InstallReact for the error path.
func rewrite(ctx context.Context, hook hooks.Hook, msgs []*schema.Message, infos []*schema.ToolInfo) []*schema.Message {
	hs := &hooks.State{
		Messages:      slices.Clone(msgs),
		Tools:         slices.Clone(infos),
		ContextTokens: ContextTokens(msgs),
		StepCount:     repliesSinceUser(msgs),
		Values:        map[string]any{},
	}
	err := runHook(IsolateCallbacks(ctx, "einocompact.hooks"), hook, hs)
	if err == nil && hs.StopRun {
		err = fmt.Errorf("at %s: %w", hooks.BeforeLLM, ErrStopped)
	}
	if err != nil {
		sentinel := &schema.Message{
			Role:    schema.System,
			Content: "einocompact: a hook failed; this message never reaches the model",
			Extra:   map[string]any{failureKey: &hookFailure{err: fmt.Errorf("einoint: %s: %w", hooks.HookName(hook), err)}},
		}
		return append(slices.Clone(msgs), sentinel)
	}
	return hs.Messages
}

// runHook turns a panicking hook into an error wrapping hooks.ErrHookPanic:
// a panic escaping the rewriter would reach the caller without its value.
func runHook(ctx context.Context, hook hooks.Hook, hs *hooks.State) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", hooks.ErrHookPanic, p)
		}
	}()
	return hook.Run(ctx, hs)
}

// repliesSinceUser counts the assistant messages after the last real user
// message; a compaction summary is a user message by role only.
func repliesSinceUser(msgs []*schema.Message) int {
	n := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i] == nil {
			continue
		}
		switch msgs[i].Role {
		case schema.User:
			if !hasMarker(msgs[i]) {
				return n
			}
		case schema.Assistant:
			n++
		}
	}
	return n
}

// hookError returns the error of the newest sentinel in msgs, if any.
func hookError(msgs []*schema.Message) error {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i] == nil {
			continue
		}
		if f, ok := msgs[i].Extra[failureKey].(*hookFailure); ok {
			return f.err
		}
	}
	return nil
}

// failingModel fails a call whose input carries a hook failure and otherwise
// is the model it wraps.
type failingModel struct {
	inner model.ToolCallingChatModel
}

// Generate returns the hook's error, or the inner model's reply.
func (m *failingModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := hookError(in); err != nil {
		return nil, err
	}
	return m.inner.Generate(ctx, in, opts...)
}

// Stream returns the hook's error, or the inner model's stream.
func (m *failingModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := hookError(in); err != nil {
		return nil, err
	}
	return m.inner.Stream(ctx, in, opts...)
}

// WithTools binds tools to the inner model and keeps the wrapper.
func (m *failingModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &failingModel{inner: inner}, nil
}

// IsCallbacksEnabled reports what the inner model does, so Eino wraps the
// wrapper in callbacks exactly when it would have wrapped the model.
func (m *failingModel) IsCallbacksEnabled() bool {
	c, ok := m.inner.(components.Checker)
	return ok && c.IsCallbacksEnabled()
}

// GetType reports the inner model's type name for callbacks and traces.
func (m *failingModel) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	return "EinocompactHookGuard"
}
