package compaction

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// TestPreparedDoneSaysWhatHappened: OnPrepared hears the outcome the hook
// acts on. A result the hook will not apply (not smaller, or breaking
// tool-call pairing) is reported as refused, not as a compaction written.
func TestPreparedDoneSaysWhatHappened(t *testing.T) {
	t.Parallel()
	boom := errors.New("summarizer down")
	tests := []struct {
		name    string
		compact func(msgs []*schema.Message) ([]*schema.Message, error)
		want    PreparedDone // Step and Duration not compared
	}{
		{"written", func(msgs []*schema.Message) ([]*schema.Message, error) {
			return []*schema.Message{msgs[0], user("short")}, nil
		}, PreparedDone{}},
		{"not smaller", func(msgs []*schema.Message) ([]*schema.Message, error) {
			return append(msgs[:len(msgs):len(msgs)], user("more")), nil
		}, PreparedDone{Refused: true}},
		{"breaks pairing", func(msgs []*schema.Message) ([]*schema.Message, error) {
			return []*schema.Message{msgs[0], msgs[len(msgs)-1]}, nil // a tool result without its call
		}, PreparedDone{Refused: true}},
		{"declined", func([]*schema.Message) ([]*schema.Message, error) { return nil, nil }, PreparedDone{Declined: true}},
		{"failed", func([]*schema.Message) ([]*schema.Message, error) { return nil, boom }, PreparedDone{Err: boom}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			comp := CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				return tc.compact(msgs)
			})
			done := make(chan PreparedDone, 1)
			h := dfHook(t, comp, done)
			msgs := dfGrow(t, []*schema.Message{sys("rules"), user("task")}, "a", 5000) // above PrepareAt, below CompactAt
			if r, err := h.Decide(context.Background(), &hooks.State{Messages: msgs}); err != nil || !r.Preparing {
				t.Fatalf("report %+v, err %v: want a compaction prepared", r, err)
			}
			select {
			case d := <-done:
				if !errors.Is(d.Err, tc.want.Err) || (d.Err == nil) != (tc.want.Err == nil) || d.Declined != tc.want.Declined || d.Refused != tc.want.Refused {
					t.Errorf("OnPrepared got %+v, want Err=%v Declined=%v Refused=%v", d, tc.want.Err, tc.want.Declined, tc.want.Refused)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("OnPrepared was not called")
			}
		})
	}
}

// resultCounter is fc1 that counts the calls measuring exactly the
// messages of watch (the same values, in order).
type resultCounter struct {
	watch []*schema.Message
	calls atomic.Int32
}

func (c *resultCounter) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if slices.Equal(messages, c.watch) {
		c.calls.Add(1)
	}
	return fc1.Count(ctx, messages, tools)
}

// TestPreparedResultMeasuredOnce: the size of a prepared result is measured
// on the job's goroutine (to tell a useless result early) and the model
// call that applies it does not measure it again: with a counter that
// tokenizes remotely or keeps no cache, every count on that call's path is
// part of its stall.
func TestPreparedResultMeasuredOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	msgs := dfGrow(t, []*schema.Message{sys("rules"), user("task")}, "a", 5000) // above PrepareAt, below CompactAt
	result := []*schema.Message{msgs[0], user("short")}
	counter := &resultCounter{watch: result}
	comp := CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
		return result, nil
	})
	h, err := NewCompactionHook(ctx, &HookConfig{Compactor: comp, ContextWindow: dfWindow, PrepareAt: 0.45, TokenCounter: counter, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	if r, err := h.Decide(ctx, &hooks.State{Messages: msgs}); err != nil || !r.Preparing {
		t.Fatalf("report %+v, err %v: want a compaction prepared", r, err)
	}
	if err := h.WaitPrepared(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := h.Decide(ctx, &hooks.State{Messages: dfGrow(t, msgs, "b", 7500), StepCount: 1})
	if err != nil || !r.Prepared || !r.Compacted {
		t.Fatalf("report %+v, err %v: want the prepared compaction applied", r, err)
	}
	if n := counter.calls.Load(); n != 1 {
		t.Errorf("the prepared result was measured %d times, want once", n)
	}
}
