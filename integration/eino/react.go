package einoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/internal/marker"
)

// failureKey marks the sentinel message a failed hook leaves in the react
// agent's state. Its value is a string, the id under which the installation's
// failures hold the hook's error: Extra must stay encodable (Eino checkpoints
// state with gob, and a pointer to an unexported type is not), and the error
// itself, with what errors.Is finds in it, cannot travel through gob.
const failureKey = "einocompact.hook_failure"

// maxHeldFailures bounds the errors held for sentinels no model call has read
// yet (a run interrupted between the hook and the model call leaves one).
const maxHeldFailures = 1024

// failures holds the errors of failed hook runs from the rewriter that
// records them until the wrapped model's call that reports them.
type failures struct {
	mu   sync.Mutex
	next uint64
	errs map[string]error
}

// hold records err and returns the id to put in the sentinel.
func (f *failures) hold(err error) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.errs == nil {
		f.errs = make(map[string]error)
	}
	if len(f.errs) >= maxHeldFailures {
		for id := range f.errs {
			delete(f.errs, id)
			break
		}
	}
	f.next++
	id := strconv.FormatUint(f.next, 10)
	f.errs[id] = err
	return id
}

// take returns, and forgets, the error held under id. An id no longer held
// (read already, or the state was restored in another process) still fails
// the call, with ErrHookFailed.
func (f *failures) take(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err, ok := f.errs[id]; ok {
		delete(f.errs, id)
		return err
	}
	return fmt.Errorf("einoint: %w (its error is no longer held)", ErrHookFailed)
}

// ErrHookFailed is returned by a react agent's model call whose input holds
// the sentinel of a failed hook whose own error is no longer available.
var ErrHookFailed = errors.New("a hook failed before this model call")

// InstallReact makes hook run before every model call of the react agent
// built from cfg, as its MessageRewriter, with the messages accumulated in the
// run and the tool schemas of cfg.ToolsConfig.Tools (read here, once, since
// the rewriter sees no tools). Call it before react.NewAgent, once per
// config. An existing MessageRewriter runs first.
//
// The hook's rewrite of State.Messages persists for the rest of the run,
// which is what compaction needs. State.ContextTokens comes from the last
// reply's usage (see ContextTokens); State.StepCount is the number of model
// replies since the last user message. State.LastModelCallAt stays zero
// (unknown, taken as a warm cache): a MessageRewriter sees neither the run
// nor the time of its replies.
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
//
// Tools the hook provides (hooks.ToolProvider: the recall tool of a
// compaction hook with an archive) are added to cfg.ToolsConfig.Tools unless
// one of that name is there. The react graph keeps its state private, so
// tool calls cannot be scoped to their run here (hooks.ToolScoper): recall
// then accepts any reference its archive signed; to refuse other
// conversations' references, pass Generate a ctx naming the conversation
// (compaction.WithConversation).
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
	if p, ok := hook.(hooks.ToolProvider); ok {
		provided, err := p.ProvidedTools(ctx)
		if err == nil {
			cfg.ToolsConfig.Tools, err = addProvided(ctx, cfg.ToolsConfig.Tools, provided)
		}
		if err != nil {
			return fmt.Errorf("einoint: InstallReact: %s: %w", hooks.HookName(hook), err)
		}
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
	held := &failures{}
	cfg.MessageRewriter = func(ctx context.Context, msgs []*schema.Message) []*schema.Message {
		if prev != nil {
			msgs = prev(ctx, msgs)
		}
		return rewrite(ctx, hook, msgs, infos, held)
	}
	cfg.ToolCallingModel = &failingModel{inner: cfg.ToolCallingModel, held: held}
	return nil
}

// rewrite runs hook on a copy of msgs; see InstallReact for the error path.
func rewrite(ctx context.Context, hook hooks.Hook, msgs []*schema.Message, infos []*schema.ToolInfo, held *failures) []*schema.Message {
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
			Extra:   map[string]any{failureKey: held.hold(fmt.Errorf("einoint: %s: %w", hooks.HookName(hook), err))},
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
			if !marker.Has(msgs[i].Extra) {
				return n
			}
		case schema.Assistant:
			n++
		}
	}
	return n
}

// hookError returns the error of the newest sentinel in msgs, if any.
func (m *failingModel) hookError(msgs []*schema.Message) error {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i] == nil {
			continue
		}
		if id, ok := msgs[i].Extra[failureKey].(string); ok {
			return m.held.take(id)
		}
	}
	return nil
}

// failingModel fails a call whose input carries a hook failure and otherwise
// is the model it wraps.
type failingModel struct {
	inner model.ToolCallingChatModel
	held  *failures
}

// Generate returns the hook's error, or the inner model's reply.
func (m *failingModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := m.hookError(in); err != nil {
		return nil, err
	}
	return m.inner.Generate(ctx, in, opts...)
}

// Stream returns the hook's error, or the inner model's stream.
func (m *failingModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := m.hookError(in); err != nil {
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
	return &failingModel{inner: inner, held: m.held}, nil
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
