package compaction

import (
	"context"
	"errors"
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
