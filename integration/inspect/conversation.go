package inspect

import (
	"context"
	"strconv"

	"github.com/einocompact/einocompact/hooks"
)

type conversationKey struct{}

// WithConversation returns a context under which the Recorder files model
// calls and compactions under id. Without it, a wrapped hook files a run
// under an id it keeps in hooks.State.Values (the agent keeps Values for a
// whole run, so each run is one conversation), and a bare Observer under
// DefaultConversation.
func WithConversation(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, conversationKey{}, id)
}

// DefaultConversation is where a Recorder files what it cannot attribute.
const DefaultConversation = "default"

// ValuesKey is the hooks.State.Values key where a wrapped hook keeps the id
// of the run's conversation when the context names none.
const ValuesKey = "einocompact.inspect.conversation"

// maxIDBytes bounds a conversation id kept in memory and shown.
const maxIDBytes = 200

// conversationID names the conversation of a model call: the context's id,
// else the run's id in state.Values (assigned on first sight), else
// DefaultConversation.
func (r *Recorder) conversationID(ctx context.Context, state *hooks.State) string {
	if id, ok := ctx.Value(conversationKey{}).(string); ok && id != "" {
		return clip(id, maxIDBytes)
	}
	if state == nil || state.Values == nil {
		return DefaultConversation
	}
	if id, ok := state.Values[ValuesKey].(string); ok && id != "" {
		return clip(id, maxIDBytes)
	}
	id := "run-" + strconv.FormatUint(r.runs.Add(1), 10)
	state.Values[ValuesKey] = id
	return id
}
