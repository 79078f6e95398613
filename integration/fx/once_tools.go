package compactfx

import (
	"context"

	"github.com/cloudwego/eino/components/tool"

	"github.com/einocompact/einocompact/hooks"
)

// ProvidedTools implements hooks.ToolProvider for the wrapped hook: its
// tools (the recall tool of a compaction hook with an archive), or none.
func (o *onceHook) ProvidedTools(ctx context.Context) ([]tool.BaseTool, error) {
	if p, ok := o.Hook.(hooks.ToolProvider); ok {
		return p.ProvidedTools(ctx)
	}
	return nil, nil
}

// ScopeToolCall implements hooks.ToolScoper for the wrapped hook: ctx as
// the hook scopes it, or unchanged.
func (o *onceHook) ScopeToolCall(ctx context.Context, state *hooks.State) context.Context {
	if s, ok := o.Hook.(hooks.ToolScoper); ok {
		return s.ScopeToolCall(ctx, state)
	}
	return ctx
}
