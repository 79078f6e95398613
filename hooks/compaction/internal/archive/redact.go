package archive

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/marker"
)

// Redacting is an archive that passes every text of what it puts through
// Redact before Archive stores it (compaction.RedactArchive, whose godoc
// says what is rewritten); Get reads Archive as it is.
type Redacting struct {
	// Archive stores the redacted copies: a compaction.Archive.
	Archive interface {
		Put(ctx context.Context, conv string, messages []*schema.Message) (ref string, err error)
		Get(ctx context.Context, ref string) (conv string, messages []*schema.Message, err error)
	}
	// Redact rewrites one text; it must not be nil.
	Redact func(string) string
}

// Put archives a redacted copy of messages; the caller's are not touched.
func (r *Redacting) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	out := make([]*schema.Message, len(messages))
	for i, m := range messages {
		out[i] = redactMessage(m, r.Redact)
	}
	return r.Archive.Put(ctx, conv, out)
}

// Get returns what Archive holds under ref.
func (r *Redacting) Get(ctx context.Context, ref string) (string, []*schema.Message, error) {
	return r.Archive.Get(ctx, ref)
}

// redactMessage is a copy of m with every shown text passed through f, and
// of its Extra only the compaction marker: the rest is never shown and may
// hold anything.
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
	if mark, ok := m.Extra[marker.Key]; ok {
		c.Extra = map[string]any{marker.Key: mark}
	}
	return &c
}
