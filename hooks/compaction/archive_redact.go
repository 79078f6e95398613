package compaction

import (
	"context"
	"errors"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/redact"
)

// RedactSecrets is the redaction the inspector applies to the conversation
// text it captures: the user information and query of every URL are masked,
// and so is every word that starts like a provider's API key ("sk-",
// "gsk_", "AIza", ...). Pass it to RedactArchive.
func RedactSecrets(s string) string { return redact.Text(s) }

// RedactArchive returns an Archive that writes to a every message passed
// through redact first (RedactSecrets for the inspector's redaction), so
// the secrets never reach the archive's disk or server. It rewrites every
// text the recall tool shows (content, reasoning, text parts, tool-call
// arguments, tool names and ids) and keeps, of a message's Extra, only the
// compaction marker: the rest is never shown and may hold anything. The
// caller's messages are not touched. Get reads a as it is. With a nil
// redact, a itself is returned.
func RedactArchive(a Archive, redact func(string) string) (Archive, error) {
	if a == nil {
		return nil, errors.New("compaction: RedactArchive needs an Archive, got nil")
	}
	if redact == nil {
		return a, nil
	}
	return &redactingArchive{Archive: a, redact: redact}, nil
}

// redactingArchive redacts what it puts (RedactArchive).
type redactingArchive struct {
	Archive
	redact func(string) string
}

// Put implements Archive.
func (r *redactingArchive) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		out[i] = redactMessage(m, r.redact)
	}
	return r.Archive.Put(ctx, conv, out)
}

// redactMessage is a copy of m with every shown text passed through f.
func redactMessage(m *schema.Message, f func(string) string) *schema.Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Content, c.ReasoningContent, c.Name = f(m.Content), f(m.ReasoningContent), f(m.Name)
	c.ToolCallID, c.ToolName = f(m.ToolCallID), f(m.ToolName)
	c.MultiContent = slices.Clone(m.MultiContent)
	for i := range c.MultiContent {
		c.MultiContent[i].Text = f(c.MultiContent[i].Text)
	}
	c.UserInputMultiContent = slices.Clone(m.UserInputMultiContent)
	for i := range c.UserInputMultiContent {
		c.UserInputMultiContent[i].Text = f(c.UserInputMultiContent[i].Text)
	}
	c.AssistantGenMultiContent = slices.Clone(m.AssistantGenMultiContent)
	for i := range c.AssistantGenMultiContent {
		c.AssistantGenMultiContent[i].Text = f(c.AssistantGenMultiContent[i].Text)
	}
	c.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range c.ToolCalls {
		tc := &c.ToolCalls[i]
		tc.ID, tc.Function.Name, tc.Function.Arguments = f(tc.ID), f(tc.Function.Name), f(tc.Function.Arguments)
	}
	c.Extra = nil
	if marker, ok := m.Extra[MetaKey]; ok {
		c.Extra = map[string]any{MetaKey: marker}
	}
	return &c
}
