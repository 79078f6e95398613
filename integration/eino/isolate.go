package einoint

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// ComponentOfHook is the callbacks component name under which hook runs
// started by this package are reported, so a global handler can tell them
// from the agent's own components.
const ComponentOfHook components.Component = "EinocompactHook"

// IsolateCallbacks returns a ctx whose callback handlers are only the global
// ones (callbacks.AppendGlobalHandlers) plus handlers, under a run info of its
// own named name.
//
// Why: Eino passes callback handlers down through ctx. A hook runs inside an
// agent's model-node ctx, so a chat model the hook calls (a summarizer) would
// report to the agent's handlers as if it were the agent's model: in
// flow/agent/react its reply then shows up in WithMessageFuture, and tracing
// attributes its tokens to the agent's answer. Cancellation and deadlines of
// ctx are kept.
func IsolateCallbacks(ctx context.Context, name string, handlers ...callbacks.Handler) context.Context {
	return callbacks.InitCallbacks(ctx, &callbacks.RunInfo{Name: name, Type: "einocompact", Component: ComponentOfHook}, handlers...)
}

// IsolatedChatModel wraps m so that every call runs under IsolateCallbacks:
// whoever calls it, the agent's callback handlers never see it. handlers, if
// any, are the only ctx handlers the call reports to (for example a tracer
// kept for summaries); they fire only for models that report callbacks
// themselves, as the eino-ext models do.
//
// Hooks run by this package's Middleware and InstallReact, and by the agent
// package, are already isolated; wrap the summarizer yourself when you call
// hooks from your own code.
func IsolatedChatModel(m model.BaseChatModel, name string, handlers ...callbacks.Handler) model.BaseChatModel {
	return &isolatedModel{inner: m, name: name, handlers: handlers}
}

type isolatedModel struct {
	inner    model.BaseChatModel
	name     string
	handlers []callbacks.Handler
}

// Generate calls the inner model with an isolated ctx.
func (m *isolatedModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.inner.Generate(IsolateCallbacks(ctx, m.name, m.handlers...), in, opts...)
}

// Stream calls the inner model with an isolated ctx.
func (m *isolatedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(IsolateCallbacks(ctx, m.name, m.handlers...), in, opts...)
}

// IsCallbacksEnabled tells Eino not to wrap this model in callbacks of the
// graph node it may be placed in: isolation is the point of the wrapper.
func (m *isolatedModel) IsCallbacksEnabled() bool { return true }
