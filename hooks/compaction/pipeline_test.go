package compaction

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// plStage is a recording compactor: it returns its reply (nil means
// "nothing to do"), remembers the conversations it saw, and records
// WarmUp/Close calls into a shared log.
type plStage struct {
	name  string
	reply func([]*schema.Message) []*schema.Message
	err   error

	mu   sync.Mutex
	seen [][]*schema.Message
	log  *[]string
}

func (s *plStage) Compact(_ context.Context, messages []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
	s.mu.Lock()
	s.seen = append(s.seen, messages)
	s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.reply == nil {
		return nil, nil
	}
	return s.reply(messages), nil
}

func (s *plStage) WarmUp(context.Context) error {
	*s.log = append(*s.log, "warm "+s.name)
	return s.err
}

func (s *plStage) Close(context.Context) error {
	*s.log = append(*s.log, "close "+s.name)
	return s.err
}

func (s *plStage) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// plKeepLast returns a reply keeping only the last n messages.
func plKeepLast(n int) func([]*schema.Message) []*schema.Message {
	return func(m []*schema.Message) []*schema.Message { return append([]*schema.Message(nil), m[len(m)-n:]...) }
}

func TestPipelineStagesInOrder(t *testing.T) {
	t.Parallel()
	var log []string
	msgs := fresh() // 113 tokens under FC4
	tests := []struct {
		name       string
		first      func([]*schema.Message) []*schema.Message
		second     func([]*schema.Message) []*schema.Message
		target     int
		wantLen    int // 0: nil result
		wantSecond int // calls of the second stage
	}{
		{name: "first stage meets the target: second never runs", first: plKeepLast(1), second: plKeepLast(1), target: 50, wantLen: 1},
		{name: "first falls short: second runs on its output", first: plKeepLast(3), second: plKeepLast(1), target: 50, wantLen: 1, wantSecond: 1},
		{name: "first declines: second runs on the input", second: plKeepLast(2), target: 50, wantLen: 2, wantSecond: 1},
		{name: "nobody changes anything", target: 50, wantSecond: 1},
		{name: "already fits: no stage runs", first: plKeepLast(1), second: plKeepLast(1), target: 113},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &plStage{name: "a", reply: tt.first, log: &log}
			b := &plStage{name: "b", reply: tt.second, log: &log}
			p, err := NewPipeline(a, b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Compact(context.Background(), msgs, tt.target, fc4)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantLen || (tt.wantLen == 0) != (got == nil) {
				t.Errorf("got %d messages (nil %v), want %d", len(got), got == nil, tt.wantLen)
			}
			if b.calls() != tt.wantSecond {
				t.Errorf("second stage ran %d times, want %d", b.calls(), tt.wantSecond)
			}
			if tt.wantSecond > 0 && tt.first != nil && len(b.seen[0]) != len(tt.first(msgs)) {
				t.Errorf("second stage saw %d messages, not the first stage's output", len(b.seen[0]))
			}
		})
	}
}

func TestPipelineErrorsAndLifecycle(t *testing.T) {
	t.Parallel()
	if _, err := NewPipeline(); err == nil {
		t.Error("empty pipeline accepted")
	}
	if _, err := NewPipeline(CompactorFunc(nil), nil); err == nil || !strings.Contains(err.Error(), "stage 1") {
		t.Errorf("nil stage: err = %v", err)
	}

	var log []string
	boom := errors.New("boom")
	ok := &plStage{name: "ok", reply: plKeepLast(3), log: &log}
	bad := &plStage{name: "bad", err: boom, log: &log}
	p, _ := NewPipeline(ok, bad)
	msgs := fresh()
	got, err := p.Compact(context.Background(), msgs, 1, fc4)
	if !errors.Is(err, boom) || got != nil || !strings.Contains(err.Error(), "stage 1") {
		t.Errorf("failing stage: got %v, err %v", got, err)
	}
	if !reflect.DeepEqual(msgs, fresh()) {
		t.Error("input changed")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Compact(ctx, msgs, 1, fc4); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}

	log = nil
	good, _ := NewPipeline(ok, &plStage{name: "two", log: &log})
	if err := good.WarmUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := good.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"warm ok", "warm two", "close ok", "close two"}; !reflect.DeepEqual(log, want) {
		t.Errorf("lifecycle = %v, want %v", log, want)
	}
	if err := p.Close(context.Background()); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want the stage's error", err)
	}
}

// TestPipelinePruneThenSlide runs the two cheap compactors as one: pruning
// alone cannot reach a target below the protected newest step, so the window
// must run on pruning's output.
func TestPipelinePruneThenSlide(t *testing.T) {
	t.Parallel()
	pr, _ := NewToolResultPruningCompactor(context.Background(), nil)
	sw, _ := NewSlidingWindowCompactor(context.Background(), nil)
	p, _ := NewPipeline(pr, sw)
	msgs := []*schema.Message{
		sys("rules"), user("task"), call("c1"), result("c1", rep("a", 2000)),
		call("c2"), result("c2", rep("b", 2000)), call("c3"), result("c3", rep("c", 2000)),
	}
	before := cloneAll(msgs)

	// Pruning frees enough for this target: the window must not run.
	mild := count(fc4, msgs...) - 400
	got, err := p.Compact(context.Background(), msgs, mild, fc4)
	if err != nil || len(got) != len(msgs) || !IsStrategy(got[3], StrategyToolResultPruning) || count(fc4, got...) > mild {
		t.Fatalf("mild target: %d messages, err %v", len(got), err)
	}

	got, err = p.Compact(context.Background(), msgs, 1, fc4)
	if err != nil {
		t.Fatal(err)
	}
	want := []*schema.Message{msgs[0], msgs[1], nil, msgs[6], msgs[7]}
	if len(got) != len(want) || !IsStrategy(got[2], StrategySlidingWindow) {
		t.Fatalf("got %q", Render(got, RenderOptions{}))
	}
	for i, m := range want {
		if m != nil && got[i] != m {
			t.Errorf("message %d = %q", i, RenderMessage(got[i], RenderOptions{}))
		}
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input changed")
	}
	if err := swPairing(got); err != nil {
		t.Error(err)
	}
}

// TestPipelineCancelledDuringLastStage: a ctx that ends while the last stage
// runs comes back as an error wrapping ctx.Err(), with no partial result,
// even when that stage declines instead of saying so.
func TestPipelineCancelledDuringLastStage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
		return msgs[1:], nil // some progress, still above the target
	})
	last := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		cancel()
		return nil, nil
	})
	p, err := NewPipeline(first, last)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Compact(ctx, ftConversation(), 1, fc1)
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("Compact = %d messages, %v; want nil and an error wrapping context.Canceled", len(out), err)
	}
}
