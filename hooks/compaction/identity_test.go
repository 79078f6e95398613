package compaction

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestMessageDigestByContent: a copy has the digest of its original, and
// every field a message says something with changes it; ResponseMeta, which
// reports on the call that produced the message, does not.
func TestMessageDigestByContent(t *testing.T) {
	t.Parallel()
	base := func() *schema.Message {
		m := call("id-1")
		m.Content = "calling"
		m.ReasoningContent = "because"
		m.Extra = NewMarker(StrategySummarization, 3, nil)
		m.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "part"}}
		return m
	}
	tests := []struct {
		name     string
		edit     func(m *schema.Message)
		wantSame bool
	}{
		{"a deep copy", func(*schema.Message) {}, true},
		{"usage reported", func(m *schema.Message) {
			m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 9}}
		}, true},
		{"role", func(m *schema.Message) { m.Role = schema.User }, false},
		{"content", func(m *schema.Message) { m.Content = "calling!" }, false},
		{"name", func(m *schema.Message) { m.Name = "bot" }, false},
		{"reasoning", func(m *schema.Message) { m.ReasoningContent = "since" }, false},
		{"tool call id", func(m *schema.Message) { m.ToolCalls[0].ID = "id-2" }, false},
		{"tool call arguments", func(m *schema.Message) { m.ToolCalls[0].Function.Arguments = `{"q":2}` }, false},
		{"multi-part text", func(m *schema.Message) { m.UserInputMultiContent[0].Text = "other" }, false},
		{"marker", func(m *schema.Message) { m.Extra = NewMarker(StrategySummarization, 4, nil) }, false},
		{"tool call id of a result", func(m *schema.Message) { m.ToolCallID = "id-1" }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			orig, other := base(), deepCopy(base())
			tc.edit(other)
			if same := MessageDigest(orig) == MessageDigest(other); same != tc.wantSame {
				t.Fatalf("same digest = %v, want %v", same, tc.wantSame)
			}
			if same := sameMessage(orig, other); same != tc.wantSame {
				t.Fatalf("sameMessage = %v, want %v", same, tc.wantSame)
			}
		})
	}
}

// TestPrefixDigestOrderAndLength: a prefix digest tells apart the same
// messages in another order, one message more, and a split of one text
// over two messages.
func TestPrefixDigestOrderAndLength(t *testing.T) {
	t.Parallel()
	a, b := user("ab"), asst("c")
	base := PrefixDigest([]*schema.Message{a, b})
	for name, other := range map[string][]*schema.Message{
		"swapped":      {b, a},
		"longer":       {a, b, b},
		"shorter":      {a},
		"resplit text": {user("a"), asst("bc")},
	} {
		if PrefixDigest(other) == base {
			t.Errorf("%s: same prefix digest", name)
		}
	}
	if PrefixDigest([]*schema.Message{deepCopy(a), deepCopy(b)}) != base {
		t.Error("copies: another prefix digest")
	}
}

// TestCopiedMessagesKeepPreparedWork: a middleware that hands the hook a
// copy of every message before each call must neither start a new
// background compaction at every call between PrepareAt and CompactAt nor
// lose the prepared one at the trigger.
func TestCopiedMessagesKeepPreparedWork(t *testing.T) {
	t.Parallel()
	copyAll := func(msgs []*schema.Message) []*schema.Message {
		out := make([]*schema.Message, len(msgs))
		for i, m := range msgs {
			out[i] = deepCopy(m)
		}
		return out
	}
	c := &ppCompactor{}
	h := ppHook(t, c, nil)
	ctx := context.Background()
	msgs := ppConv("task-0", 4) // at PrepareAt
	if _, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)}); err != nil {
		t.Fatal(err)
	}
	ppWaitPrepared(t, h, msgs)
	msgs = ppStep(msgs, "task-0", 4) // still below CompactAt
	if r, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)}); err != nil || r.Triggered {
		t.Fatalf("below the trigger: triggered=%v err=%v", r.Triggered, err)
	}
	msgs = ppStep(msgs, "task-0", 5) // at CompactAt
	r, err := h.Decide(ctx, &hooks.State{Messages: copyAll(msgs)})
	if err != nil || !r.Compacted || !r.Prepared {
		t.Fatalf("at the trigger: err=%v compacted=%v prepared=%v, want the prepared result applied", err, r.Compacted, r.Prepared)
	}
	if calls := c.callsNow(); len(calls) != 1 {
		t.Fatalf("compactor calls %+v, want the one prepared at PrepareAt", calls)
	}
}
