package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/internal/redistest"
)

// sameOpening is conversation i of many that begin alike: one system
// prompt and one first user message for all, then n tool steps of their
// own.
func sameOpening(i, n int) []*schema.Message {
	msgs := conv("fleet", 0)
	task := fmt.Sprintf("conv%02d", i)
	for s := range n {
		id := fmt.Sprintf("%s-call-%d", task, s)
		msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "run", Arguments: fmt.Sprintf(`{"step":%d}`, s)}}}),
			schema.ToolMessage(fmt.Sprintf("%s step %d: %s", task, s, strings.Repeat("compiler output line; ", 40)), id))
	}
	return msgs
}

// TestRedisSharedOpeningSummarizedOnce (issue 30 item 2): 40 conversations
// with the same system prompt and first user message, each compacted on
// replica A, then continued a step later on replica B, cost 40 summarizer
// calls in all, as in one process: B applies A's compaction of every one.
// Before: every prefix was filed under the opening, in one list of 32
// keys; B missed the oldest and, compacting them itself, pushed out the
// rest (80 calls).
func TestRedisSharedOpeningSummarizedOnce(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newReplica(t, client(t, srv), nil, false), newReplica(t, client(t, srv), nil, false)
	ctx := context.Background()
	const convs = 40
	for i := range convs {
		if r, err := a.hook.Decide(ctx, &hooks.State{Messages: sameOpening(i, 6)}); err != nil || !r.Compacted {
			t.Fatalf("A, conversation %d: err=%v compacted=%v", i, err, r.Compacted)
		}
	}
	for i := range convs {
		now := copies(sameOpening(i, 7))
		st := &hooks.State{Messages: now}
		r, err := b.hook.Decide(ctx, st)
		if err != nil || !r.Compacted || !r.Shared {
			t.Errorf("B, conversation %d: err=%v compacted=%v shared=%v, want A's compaction", i, err, r.Compacted, r.Shared)
			continue
		}
		checkKept(t, now, st.Messages)
	}
	if na, nb := a.summarizerCalls(), b.summarizerCalls(); na != convs || nb != 0 {
		t.Fatalf("summarizer calls: A %d, B %d; want %d and 0", na, nb, convs)
	}
}
