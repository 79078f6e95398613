package hooks

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
)

// ToolProvider is implemented by a hook that offers the agent tools of its
// own: a compaction hook with an archive offers the recall tool that reads
// back what it removed. An agent running a Registry adds them to the tools
// it gives the model (Registry.ProvidedTools).
type ToolProvider interface {
	ProvidedTools(ctx context.Context) ([]tool.BaseTool, error)
}

// ToolScoper is implemented by a hook whose tools must know which run a
// call belongs to: ScopeToolCall returns the ctx for a tool call made while
// the run's state is state (the recall tool reads the conversation from
// it, to refuse another conversation's references). It only reads state.
type ToolScoper interface {
	ScopeToolCall(ctx context.Context, state *State) context.Context
}

// ProvidedTools returns the tools of every registered ToolProvider, each
// distinct hook asked once, in registration order.
func (r *Registry) ProvidedTools(ctx context.Context) ([]tool.BaseTool, error) {
	if r == nil {
		return nil, nil
	}
	var out []tool.BaseTool
	for _, h := range r.distinct {
		p, ok := h.(ToolProvider)
		if !ok {
			continue
		}
		tools, err := p.ProvidedTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("hooks: %s: provided tools: %w", HookName(h), err)
		}
		out = append(out, tools...)
	}
	return out, nil
}

// ScopeToolCall passes ctx through every registered ToolScoper, each
// distinct hook once, in registration order.
func (r *Registry) ScopeToolCall(ctx context.Context, state *State) context.Context {
	if r == nil || state == nil {
		return ctx
	}
	for _, h := range r.distinct {
		if s, ok := h.(ToolScoper); ok {
			ctx = s.ScopeToolCall(ctx, state)
		}
	}
	return ctx
}

// HasToolScopers reports whether any registered hook is a ToolScoper, so an
// agent adds its per-call scoping only when some hook needs it.
func (r *Registry) HasToolScopers() bool {
	if r == nil {
		return false
	}
	for _, h := range r.distinct {
		if _, ok := h.(ToolScoper); ok {
			return true
		}
	}
	return false
}
