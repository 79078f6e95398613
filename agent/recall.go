package agent

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"

	"github.com/einocompact/einocompact/hooks"
)

// withProvidedTools adds the tools the registry's hooks offer
// (hooks.ToolProvider: the recall tool of a compaction hook with an
// archive) to tools, except one named like a tool already there, so the
// caller's own, built with its options, wins.
func withProvidedTools(ctx context.Context, tools []tool.BaseTool, reg *hooks.Registry) ([]tool.BaseTool, error) {
	provided, err := reg.ProvidedTools(ctx)
	if err != nil || len(provided) == 0 {
		if err != nil {
			return nil, fmt.Errorf("%w: Hooks: %w", ErrInvalidConfig, err)
		}
		return tools, nil
	}
	have := make(map[string]bool, len(tools))
	for _, t := range tools {
		if t == nil {
			continue // toolInfos names it
		}
		if info, err := t.Info(ctx); err == nil && info != nil {
			have[info.Name] = true
		}
	}
	for _, t := range provided {
		info, err := t.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: Hooks: a provided tool's Info: %w", ErrInvalidConfig, err)
		}
		if !have[info.Name] {
			tools = append(tools, t)
			have[info.Name] = true
		}
	}
	return tools, nil
}

// toolScope is the ToolsNode middleware that lets the registry's hooks
// tell each tool call which run it belongs to (hooks.ToolScoper: the
// recall tool learns the conversation, and refuses another's references).
func toolScope(reg *hooks.Registry) compose.ToolMiddleware {
	scoped := func(ctx context.Context) context.Context {
		out := ctx
		_ = withState(ctx, func(st *runState) error {
			out = reg.ScopeToolCall(ctx, &st.hs)
			return nil
		})
		return out
	}
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
				return next(scoped(ctx), in)
			}
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
				return next(scoped(ctx), in)
			}
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
				return next(scoped(ctx), in)
			}
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
				return next(scoped(ctx), in)
			}
		},
	}
}
