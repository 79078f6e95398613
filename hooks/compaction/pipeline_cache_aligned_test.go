package compaction_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// inputRecorder is a pipeline stage that records the conversation it is
// handed before passing it on.
type inputRecorder struct {
	compaction.Compactor
	mu   sync.Mutex
	seen [][]*schema.Message
}

func (r *inputRecorder) Compact(ctx context.Context, messages []*schema.Message, target int, counter compaction.TokenCounter) ([]*schema.Message, error) {
	r.mu.Lock()
	r.seen = append(r.seen, messages)
	r.mu.Unlock()
	return r.Compactor.Compact(ctx, messages, target, counter)
}

// TestPipelineCacheAlignedAsSent checks, on the HTTP bodies of the real
// eino-ext client, that a cache-aligned summarization stage behind a
// tool-result pruning stage sends the agent's last request as the agent
// sent it, unpruned, and names the span it summarizes by the sent messages,
// while what it replaces is the pruned conversation's messages, with no
// tool call parted from its result.
func TestPipelineCacheAlignedAsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	var shapes []string
	srv := openaitest.Start(t, func(r *openaitest.Request) (*openaitest.Reply, error) {
		mu.Lock()
		shapes = append(shapes, caShape(r))
		mu.Unlock()
		return openaitest.Text("## Work completed\n- fetched t1 to t4"), nil
	})
	chat, err := srv.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msgs := caConversation(6)
	tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic."}}
	// The agent's last request, sent by the same client the way the agent
	// sends it: everything before its newest reply, with its tools.
	if _, err := chat.Generate(ctx, msgs[:compaction.LastAssistantIndex(msgs)], model.WithTools(tools)); err != nil {
		t.Fatal(err)
	}
	prune, err := compaction.NewToolResultPruningCompactor(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	var rounds []compaction.Round
	summarizer, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: chat, CacheAligned: true, MinKeepSteps: &one, Logger: slog.New(slog.DiscardHandler),
		OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
	if err != nil {
		t.Fatal(err)
	}
	stage := &inputRecorder{Compactor: summarizer}
	p, err := compaction.NewPipeline(prune, stage)
	if err != nil {
		t.Fatal(err)
	}
	total, err := h22FC4.Count(ctx, msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Compact(compaction.WithRequestTools(ctx, tools), msgs, total/3, h22FC4)
	if err != nil || out == nil {
		t.Fatalf("Compact: %v, %d messages", err, len(out))
	}

	if len(stage.seen) != 1 {
		t.Fatalf("the summarization stage ran %d times, want once", len(stage.seen))
	}
	pruned := 0
	for _, m := range stage.seen[0] {
		if compaction.IsStrategy(m, compaction.StrategyToolResultPruning) {
			pruned++
		}
	}
	if pruned == 0 {
		t.Fatal("the pruning stage pruned nothing, so the summarization stage was handed the conversation as sent")
	}
	reqs := srv.Requests()
	agent := reqs[0]
	aligned := 0
	for i, r := range reqs[1:] {
		if r.Rejected != "" {
			t.Errorf("request %d rejected: %s", i+1, r.Rejected)
		}
		if caShape(r) != compaction.ShapeCacheAligned {
			continue
		}
		aligned++
		if aligned > 1 {
			continue // later rounds may hold the first round's summary
		}
		if got, want := caJSON(t, r.Messages[:len(r.Messages)-1]), caJSON(t, agent.Messages); got != want {
			t.Errorf("the cache-aligned request's messages differ from the agent's last request:\n got %s\nwant %s", got, want)
		}
		if got, want := caJSON(t, r.Tools), caJSON(t, agent.Tools); got != want {
			t.Errorf("tools %s, want the agent's %s", got, want)
		}
	}
	if aligned == 0 {
		t.Fatalf("no cache-aligned summarizer request was sent (requests: %v)", shapes)
	}
	if r := rounds[0]; r.Shape != compaction.ShapeCacheAligned || r.AlignedFallback != "" || r.Err != nil {
		t.Errorf("first round: shape %q fallback %q err %v; want %q, none, nil", r.Shape, r.AlignedFallback, r.Err, compaction.ShapeCacheAligned)
	}
	calls, results := map[string]bool{}, map[string]bool{}
	for _, m := range out {
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
		}
		if m.Role == schema.Tool {
			if !calls[m.ToolCallID] {
				t.Errorf("the result of call %q has no call before it", m.ToolCallID)
			}
			results[m.ToolCallID] = true
		}
	}
	for id := range calls {
		if !results[id] {
			t.Errorf("call %q lost its result", id)
		}
	}
	after, err := h22FC4.Count(ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after >= total {
		t.Errorf("the conversation did not shrink: %d tokens, was %d", after, total)
	}
}
