package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	einoint "github.com/einocompact/einocompact/integration/eino"
)

// runState is the graph-local state of one run. Eino creates it per run and
// serialises access through compose.ProcessState; nothing in it outlives the
// run, so one Agent serves concurrent runs.
type runState struct {
	hs hooks.State
	// next is the node the branch after the current node goes to; each node
	// decides it while it holds the state, so branches need not re-derive it.
	next string
	// sink receives stream events; nil for Run.
	sink func(*Event) error
}

type sinkKey struct{}

// withSink makes sink the event receiver of the run started with ctx.
func withSink(ctx context.Context, sink func(*Event) error) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

func newRunState(ctx context.Context) *runState {
	sink, _ := ctx.Value(sinkKey{}).(func(*Event) error)
	return &runState{sink: sink}
}

// withState runs fn on the run's state under Eino's state lock.
func withState(ctx context.Context, fn func(*runState) error) error {
	return compose.ProcessState(ctx, func(_ context.Context, st *runState) error { return fn(st) })
}

// emit sends ev to the stream, if this run streams. A consumer that closed
// the stream ends the run.
func (st *runState) emit(ev *Event) error {
	if st.sink == nil {
		return nil
	}
	return st.sink(ev)
}

// appendMessages returns messages followed by more in a new backing array:
// hooks may keep the slices they were given, and an in-place append would
// write into their spare capacity.
func appendMessages(messages []*schema.Message, more ...*schema.Message) []*schema.Message {
	out := make([]*schema.Message, 0, len(messages)+len(more))
	return append(append(out, messages...), more...)
}

// initialMessages prepends the instruction unless the conversation already
// starts with a system message (as a conversation returned by an earlier run
// does), and copies the caller's slice.
func initialMessages(instruction string, in []*schema.Message) []*schema.Message {
	if instruction == "" || (len(in) > 0 && in[0] != nil && in[0].Role == schema.System) {
		return appendMessages(nil, in...)
	}
	return appendMessages([]*schema.Message{schema.SystemMessage(instruction)}, in...)
}

// addUsage accumulates the usage of one reply.
func addUsage(total *schema.TokenUsage, msg *schema.Message) {
	if msg == nil || msg.ResponseMeta == nil || msg.ResponseMeta.Usage == nil {
		return
	}
	u := msg.ResponseMeta.Usage
	total.PromptTokens += u.PromptTokens
	total.PromptTokenDetails.CachedTokens += u.PromptTokenDetails.CachedTokens
	total.CompletionTokens += u.CompletionTokens
	total.CompletionTokensDetails.ReasoningTokens += u.CompletionTokensDetails.ReasoningTokens
	total.TotalTokens += u.TotalTokens
}

// hookCtx isolates hooks from the run's callback handlers: a summarizer
// called by a compaction hook is not the agent's model and must not be
// reported as its output.
func hookCtx(ctx context.Context, point hooks.Point) context.Context {
	return einoint.IsolateCallbacks(ctx, "einocompact.hook."+string(point))
}

// sameCalls reports whether a and b list the same calls in the same order.
func sameCalls(a, b []schema.ToolCall) bool {
	return slices.EqualFunc(a, b, func(x, y schema.ToolCall) bool {
		return x.ID == y.ID && x.Function.Name == y.Function.Name && x.Function.Arguments == y.Function.Arguments
	})
}

// alignPendingCalls makes the assistant message ending the conversation ask
// for exactly the calls about to run, so that a before_tool hook that trimmed
// State.PendingToolCalls cannot leave calls without results (which providers
// reject). The message is replaced by a copy, never edited.
func alignPendingCalls(messages []*schema.Message, pending []schema.ToolCall) ([]*schema.Message, error) {
	n := len(messages)
	if n == 0 || messages[n-1] == nil || messages[n-1].Role != schema.Assistant {
		if len(pending) == 0 {
			return messages, nil
		}
		return nil, fmt.Errorf("%w: %d pending tool calls but the conversation does not end with the assistant message asking for them", ErrPendingCalls, len(pending))
	}
	last := messages[n-1]
	if sameCalls(last.ToolCalls, pending) {
		return messages, nil
	}
	cp := *last
	cp.ToolCalls = slices.Clone(pending)
	out := appendMessages(messages[:n-1], &cp)
	return out, nil
}
