package compaction

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// psSummarizer records every summarizer request with how many of the
// agent's requests had been sent when it came, and answers with a short
// summary.
type psSummarizer struct {
	mu       sync.Mutex
	sent     *[]string // the agent's requests, each as JSON of its messages
	requests []psRequest
}

type psRequest struct {
	prompt []*schema.Message
	sent   int // len(*sent) when the request came
}

func (m *psSummarizer) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, psRequest{prompt: in, sent: len(*m.sent)})
	return schema.AssistantMessage("## Objective\n- fetch the documents\n## Work completed\n- fetched them", nil), nil
}

func (m *psSummarizer) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, fmt.Errorf("psSummarizer does not stream")
}

func psJSON(t *testing.T, msgs []*schema.Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPreparedRequestWasSent (issue 32 item 1): every cache-aligned request
// of a compaction prepared in the background is, before its instruction,
// byte for byte the beginning of a request the agent had already sent. A
// compaction that leaves the call above PrepareAt prepares the next one at
// once; its request was built from the compacted conversation, which no
// request had carried yet, so the provider's cache held none of it. The
// agent's model call goes out only after every prepared compaction
// finished (WaitPrepared), so a request built from the call about to be
// sent would come before it here.
func TestPreparedRequestWasSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sent []string
	rec := &psSummarizer{sent: &sent}
	c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: rec, CacheAligned: true, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 10000, PrepareAt: 0.45, TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	// Small steps, then two large ones: the first reaches PrepareAt, the
	// second the trigger, where the prepared result plus that step leaves
	// the call above PrepareAt; then small steps on.
	sizes := []int{300, 300, 300, 300, 300, 300, 2500, 2500, 300, 300, 300, 300, 300, 300, 300, 300}
	msgs := []*schema.Message{sys("rules"), user("fetch the documents")}
	preparedAfter := 0
	for step, size := range sizes {
		id := fmt.Sprintf("c%d", step)
		msgs = append(msgs[:len(msgs):len(msgs)], call(id), result(id, rep("x", size)))
		st := &hooks.State{Messages: msgs, StepCount: step}
		r, err := h.Decide(ctx, st)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if r.Compacted && r.Preparing {
			preparedAfter++
		}
		if err := h.WaitPrepared(ctx); err != nil {
			t.Fatal(err)
		}
		rec.mu.Lock()
		sent = append(sent, psJSON(t, st.Messages))
		rec.mu.Unlock()
		msgs = st.Messages
	}
	if preparedAfter == 0 {
		t.Fatal("no compaction prepared the next one in its own call: the test does not reach the case")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	aligned := 0
	for k, req := range rec.requests {
		if _, ok := AlignedSpan(req.prompt); !ok {
			continue
		}
		aligned++
		prefix := req.prompt[:len(req.prompt)-1]
		want := psJSON(t, prefix)
		found := false
		for _, s := range sent[:req.sent] {
			var agent []*schema.Message
			if err := json.Unmarshal([]byte(s), &agent); err != nil {
				t.Fatal(err)
			}
			if len(agent) >= len(prefix) && psJSON(t, agent[:len(prefix)]) == want {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("summarizer request %d (after %d agent requests): its %d messages before the instruction begin no request the agent sent",
				k+1, req.sent, len(prefix))
		}
	}
	if aligned == 0 {
		t.Fatal("no cache-aligned summarizer request was sent")
	}
}
