package agent

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// stateToolsModel is the agent's model as the graph calls it: it sends the
// tool schemas State.Tools holds after the before_llm hooks, which
// hooks.State documents as "sent with the next model call". When the hooks
// left them as the agent set them, the model's bound tools go unchanged;
// otherwise the call carries model.WithTools. Without this, a hook that
// trimmed State.Tools would change what a compaction hook counts but not
// what the provider receives, and the estimate would fall short of the
// prompt.
type stateToolsModel struct {
	inner model.BaseChatModel
	bound []*schema.ToolInfo
}

// callOptions adds the tools of the run's state to opts when they differ
// from the bound ones.
func (m *stateToolsModel) callOptions(ctx context.Context, opts []model.Option) ([]model.Option, error) {
	var tools []*schema.ToolInfo
	if err := withState(ctx, func(st *runState) error {
		tools = st.hs.Tools
		return nil
	}); err != nil {
		return nil, err
	}
	if slices.Equal(tools, m.bound) {
		return opts, nil
	}
	// Non-nil even when empty: a nil list means "the bound tools".
	return append(slices.Clone(opts), model.WithTools(append([]*schema.ToolInfo{}, tools...))), nil
}

// Generate calls the inner model with the state's tools.
func (m *stateToolsModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	opts, err := m.callOptions(ctx, opts)
	if err != nil {
		return nil, err
	}
	return m.inner.Generate(ctx, in, opts...)
}

// Stream calls the inner model with the state's tools.
func (m *stateToolsModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	opts, err := m.callOptions(ctx, opts)
	if err != nil {
		return nil, err
	}
	return m.inner.Stream(ctx, in, opts...)
}

// IsCallbacksEnabled reports what the inner model does, so Eino wraps the
// node in callbacks exactly when it would have wrapped the model itself.
func (m *stateToolsModel) IsCallbacksEnabled() bool {
	c, ok := m.inner.(components.Checker)
	return ok && c.IsCallbacksEnabled()
}

// GetType reports the inner model's type for callbacks and traces.
func (m *stateToolsModel) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	return "EinocompactAgentModel"
}
