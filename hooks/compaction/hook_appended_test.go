package compaction

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// apGate is a summarizer that, while it is "writing", releases the lock
// that serialises access to the run's state and lets another goroutine
// append to it: the window in which a write could be lost.
type apGate struct {
	mu          *sync.Mutex
	write, done chan struct{}
}

func (g *apGate) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	g.mu.Unlock()
	close(g.write)
	<-g.done
	g.mu.Lock()
	return schema.AssistantMessage("earlier pages fetched", nil), nil
}

func (g *apGate) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, nil
}

// apFellBackOnMerge checks what a compaction in a 100-token window leaves
// when a message appended while it ran keeps the merged conversation (the
// result, then the append) above the fallback line: the compaction itself
// succeeded (no Report.Err), and the sliding window of the model-free
// fallback then dropped the removed messages between the system prompt
// and the append. removed counts the merged conversation's messages, which
// tells it from a fallback on the original one (a compaction lost or
// ignored).
func apFellBackOnMerge(t *testing.T, r Report, got []*schema.Message, system, appended *schema.Message, removed int) {
	t.Helper()
	if !r.Compacted || r.Err != nil || r.Fallback != StrategySlidingWindow {
		t.Fatalf("compacted=%v err=%v fallback=%q; want the compaction applied, then the sliding window", r.Compacted, r.Err, r.Fallback)
	}
	f, _ := MarkerFields(got[1])
	if len(got) != 3 || got[0] != system || got[2] != appended || !IsStrategy(got[1], StrategySlidingWindow) || f["removed_messages"] != removed {
		t.Fatalf("want the system prompt, a note of %d dropped messages and the very message appended; got:\n%s", removed, Render(got, RenderOptions{}))
	}
}

// TestNoLostWritesDuringCompaction: a message appended to State.Messages
// while the summarizer is busy (by another goroutine, under the lock that
// guards the state) survives the compaction, after the compacted part. The
// merged conversation is still above the 100-token window's fallback line,
// so the model-free fallback runs on it and keeps the append, the newest
// message.
func TestNoLostWritesDuringCompaction(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	gate := &apGate{mu: &mu, write: make(chan struct{}), done: make(chan struct{})}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: gate, ApproximateSummaryTokens: new(1), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2, TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", rep("page ", 40)), call("c2"), result("c2", "x")}
	st := &hooks.State{Messages: slices.Clip(in)}
	followUp := user("also check page 3")
	go func() {
		<-gate.write
		mu.Lock()
		st.Messages = append(st.Messages, followUp)
		mu.Unlock()
		close(gate.done)
	}()
	merged := []*schema.Message{in[0], in[1], NewSummaryMessage("earlier pages fetched", 2), in[4], in[5], followUp}
	if float64(count(fc1, merged...)) <= 100*(1-FallbackMargin) {
		t.Fatal("the fixture no longer leaves the merged conversation above the fallback line")
	}
	mu.Lock()
	r, err := h.Decide(context.Background(), st)
	got := st.Messages
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rounds) != 1 {
		t.Fatalf("%d summarizer rounds, want 1", len(r.Rounds))
	}
	// Between the system prompt and the append: the task, the summary,
	// and the newest call with its result.
	apFellBackOnMerge(t, r, got, in[0], followUp, len(merged)-2)
}

// TestConcurrentRewriteWinsOverCompaction: when the conversation was
// rewritten (not merely appended to) while the compactor ran, the hook keeps
// that rewrite instead of clobbering it, and says so.
func TestConcurrentRewriteWinsOverCompaction(t *testing.T) {
	t.Parallel()
	in := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", rep("page ", 40)), call("c2"), result("c2", "x")}
	st := &hooks.State{Messages: in}
	rewrite := []*schema.Message{sys("rules"), user("a different task")}
	var logs bytes.Buffer
	comp := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		st.Messages = rewrite // another writer replaced the conversation meanwhile
		return []*schema.Message{in[0], in[1], NewSummaryMessage("s", 2), in[4], in[5]}, nil
	})
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2, TokenCounter: fc1,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Run(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Messages, rewrite) {
		t.Fatalf("the concurrent rewrite was clobbered: %s", Render(st.Messages, RenderOptions{}))
	}
	if !strings.Contains(logs.String(), "rewritten while compaction ran") {
		t.Errorf("no warning logged:\n%s", logs.String())
	}
}

// TestInPlaceRewriteDuringCompactionWins: a middleware that redacts the
// caller's slice in place (s[i] = ..., or append(s[:i], ...) over the same
// backing array) while a synchronous compaction runs is detected: the
// compactor worked on a snapshot, the result that would bring the secret
// back through the summary is discarded, and the redaction stays.
func TestInPlaceRewriteDuringCompactionWins(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	redacted := result("c1", "[redacted]")
	tests := []struct {
		name   string
		redact func(s []*schema.Message) []*schema.Message
	}{
		{"element replaced", func(s []*schema.Message) []*schema.Message {
			s[3] = redacted
			return s
		}},
		{"append over the same array", func(s []*schema.Message) []*schema.Message {
			return append(s[:3], append([]*schema.Message{redacted}, s[4:]...)...)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", secret+" "+rep("page ", 40)), call("c2"), result("c2", "x")}
			st := &hooks.State{Messages: in}
			comp := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				// The summary quotes what the compactor was given.
				sum := NewSummaryMessage("the search found "+strings.Fields(msgs[3].Content)[0], 2)
				st.Messages = tc.redact(st.Messages) // another writer, meanwhile
				return []*schema.Message{msgs[0], msgs[1], sum, msgs[4], msgs[5]}, nil
			})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 1000, CompactAt: 0.2, CompactTo: 0.1,
				TokenCounter: fc1, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			r, err := h.Decide(context.Background(), st)
			if err != nil || !r.Triggered {
				t.Fatalf("triggered=%v err=%v", r.Triggered, err)
			}
			if got := Render(st.Messages, RenderOptions{}); strings.Contains(got, secret) || r.Compacted {
				t.Fatalf("compacted=%v; the redacted secret came back:\n%s", r.Compacted, got)
			}
			if st.Messages[3] != redacted {
				t.Errorf("the redaction was lost: messages[3] = %q", st.Messages[3].Content)
			}
		})
	}
}

// TestAppendedDuringCompactionDoesNotHideTheSaving: whether a compaction is
// smaller is judged on what the compactor was given and returned. A large
// message appended to the state meanwhile is kept after the result, but its
// size must not make a good compaction look useless. The append alone is
// above the 100-token window, so the model-free fallback then runs on the
// merged conversation.
func TestAppendedDuringCompactionDoesNotHideTheSaving(t *testing.T) {
	t.Parallel()
	in := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", rep("page ", 40)), call("c2"), result("c2", "x")}
	st := &hooks.State{Messages: slices.Clip(in)}
	// The follow-up is larger than the saving (the 200-character result
	// against a short summary), so the merged conversation is larger than
	// the snapshot although the compaction saved tokens.
	followUp := user(rep("a long follow-up question ", 20))
	compacted := []*schema.Message{in[0], in[1], NewSummaryMessage("pages fetched", 2), in[4], in[5]}
	comp := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		st.Messages = append(st.Messages, followUp)
		return compacted, nil
	})
	if count(fc1, compacted...) >= count(fc1, in...) || count(fc1, append(slices.Clone(compacted), followUp)...) < count(fc1, in...) {
		t.Fatal("the fixture no longer sets up a saving hidden by the append")
	}
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: comp, ContextWindow: 100, CompactAt: 0.5, CompactTo: 0.2,
		TokenCounter: fc1, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Decide(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	// A compaction ignored as not smaller would leave Report.Err, and the
	// fallback would prune and drop the original's messages instead.
	apFellBackOnMerge(t, r, st.Messages, in[0], followUp, len(compacted)-1)
}
