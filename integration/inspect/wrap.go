package inspect

import (
	"context"
	"errors"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// Hook is a CompactionHook whose every model call is recorded by a
// Recorder: its estimate, its compaction when it triggers, the hook's
// thresholds and, with Config.CaptureContent, what was replaced. Register it
// where the CompactionHook would go (hooks.BeforeLLM, the ADK middleware,
// the react option). It implements hooks.Hook, hooks.PointLimiter,
// hooks.WarmUpper, hooks.Closer, hooks.ToolProvider and hooks.ToolScoper.
type Hook struct {
	rec  *Recorder
	hook *compaction.CompactionHook
}

var (
	_ hooks.Hook         = (*Hook)(nil)
	_ hooks.PointLimiter = (*Hook)(nil)
	_ hooks.WarmUpper    = (*Hook)(nil)
	_ hooks.Closer       = (*Hook)(nil)
)

// Wrap returns h recorded by r. If h also has r as its Observer, each
// compaction is still recorded once.
func (r *Recorder) Wrap(h *compaction.CompactionHook) (*Hook, error) {
	if h == nil {
		return nil, errors.New("inspect: Wrap: nil *compaction.CompactionHook")
	}
	return &Hook{rec: r, hook: h}, nil
}

// Decide runs the hook's Decide and records its report.
func (w *Hook) Decide(ctx context.Context, state *hooks.State) (compaction.Report, error) {
	id := w.rec.conversationID(ctx, state)
	var before []*schema.Message
	if state != nil {
		before = state.Messages
	}
	rep, err := w.hook.Decide(context.WithValue(ctx, recordedKey{}, w.rec), state)
	var after []*schema.Message
	if state != nil {
		after = state.Messages
	}
	limits := w.hook.Limits()
	w.rec.record(id, &limits, rep, err, before, after)
	return rep, err
}

// Run implements hooks.Hook.
func (w *Hook) Run(ctx context.Context, state *hooks.State) error {
	_, err := w.Decide(ctx, state)
	return err
}

// Unwrap returns the CompactionHook.
func (w *Hook) Unwrap() *compaction.CompactionHook { return w.hook }

// Name identifies the hook in errors and logs: the CompactionHook's name.
func (w *Hook) Name() string { return w.hook.Name() }

// AllowedPoints implements hooks.PointLimiter like the CompactionHook.
func (w *Hook) AllowedPoints() []hooks.Point { return w.hook.AllowedPoints() }

// WarmUp implements hooks.WarmUpper by warming up the CompactionHook.
func (w *Hook) WarmUp(ctx context.Context) error { return w.hook.WarmUp(ctx) }

// Close implements hooks.Closer by closing the CompactionHook.
func (w *Hook) Close(ctx context.Context) error { return w.hook.Close(ctx) }

// ProvidedTools implements hooks.ToolProvider like the CompactionHook (the
// recall tool when it has an archive).
func (w *Hook) ProvidedTools(ctx context.Context) ([]tool.BaseTool, error) {
	return w.hook.ProvidedTools(ctx)
}

// ScopeToolCall implements hooks.ToolScoper like the CompactionHook.
func (w *Hook) ScopeToolCall(ctx context.Context, state *hooks.State) context.Context {
	return w.hook.ScopeToolCall(ctx, state)
}
