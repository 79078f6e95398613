package einoint

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// Tools the hooks provide (hooks.ToolProvider, such as the recall tool of a
// compaction hook with an archive) and the scoping of tool calls
// (hooks.ToolScoper, which tells the recall tool the conversation it serves).

// addProvided appends to tools the provided tools whose names are not
// taken, so a caller's own tool of that name (built with its options) wins.
func addProvided(ctx context.Context, tools, provided []tool.BaseTool) ([]tool.BaseTool, error) {
	have := map[string]bool{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if info, err := t.Info(ctx); err == nil && info != nil {
			have[info.Name] = true
		}
	}
	for _, t := range provided {
		info, err := t.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("a provided tool's Info: %w", err)
		}
		if !have[info.Name] {
			tools = append(slices.Clip(tools), t)
			have[info.Name] = true
		}
	}
	return tools, nil
}

// runConversation holds, for one ADK run, the conversation as the hooks
// last left it, which tool calls of that run are scoped by. It lives in the
// run's ctx (BeforeAgent), never in a checkpoint.
type runConversation struct {
	mu   sync.Mutex
	msgs []*schema.Message
}

type runConversationKey struct{}

func (rc *runConversation) set(msgs []*schema.Message) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.msgs = msgs
}

func (rc *runConversation) get() []*schema.Message {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.msgs
}

// BeforeAgent adds the tools the registry's hooks provide to the run's
// tools, and, when a hook scopes tool calls, gives the run a place for the
// conversation those calls are scoped by.
func (m *Middleware) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	provided, err := m.reg.ProvidedTools(ctx)
	if err != nil {
		return ctx, runCtx, fmt.Errorf("einoint: %w", err)
	}
	if len(provided) > 0 {
		out := *runCtx
		if out.Tools, err = addProvided(ctx, runCtx.Tools, provided); err != nil {
			return ctx, runCtx, fmt.Errorf("einoint: %w", err)
		}
		runCtx = &out
	}
	if m.reg.HasToolScopers() {
		ctx = context.WithValue(ctx, runConversationKey{}, &runConversation{})
	}
	return ctx, runCtx, nil
}

// noteConversation records msgs as the run's conversation for scoping.
func noteConversation(ctx context.Context, msgs []*schema.Message) {
	if rc, ok := ctx.Value(runConversationKey{}).(*runConversation); ok {
		rc.set(msgs)
	}
}

// scopeToolCall returns ctx scoped by the registry's hooks to the run's
// conversation, when BeforeAgent and a model call recorded one.
func (m *Middleware) scopeToolCall(ctx context.Context) context.Context {
	rc, ok := ctx.Value(runConversationKey{}).(*runConversation)
	if !ok {
		return ctx
	}
	msgs := rc.get()
	if len(msgs) == 0 {
		return ctx
	}
	return m.reg.ScopeToolCall(ctx, &hooks.State{Messages: msgs})
}
