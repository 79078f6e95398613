package compaction

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// fmConversation is a conversation of exactly size fc1 tokens whose first
// tool result, old enough to prune, makes up most of it, opened by a long
// task a compactor can shorten.
func fmConversation(t *testing.T, size int) []*schema.Message {
	t.Helper()
	conv := []*schema.Message{sys("rules"), user(rep("task ", 10)), call("c1"), result("c1", ""),
		call("c2"), result("c2", "ok"), call("c3"), result("c3", "ok")}
	conv[3] = result("c1", rep("p", size-count(fc1, conv...)))
	if got := count(fc1, conv...); got != size {
		t.Fatalf("padded to %d tokens, want %d", got, size)
	}
	return conv
}

// TestHookFallsBackWhateverTheCompactorSaid: whenever a triggered
// compaction leaves the coming call estimated above the window less
// FallbackMargin, the model-free fallback runs, whatever the compactor
// said: it failed, its result was not smaller, it declined, or it shrank
// the conversation too little; also below the window itself (a run died
// with HTTP 400 at an estimate of 2,997 in a 3,000-token window), and with
// CompactAt above the line. At or below the line nothing replaces what the
// compactor did, and DisableFallback keeps the conversation whole.
func TestHookFallsBackWhateverTheCompactorSaid(t *testing.T) {
	t.Parallel()
	const window = 1000 // trigger 700, target 400, fallback line 950 (fc1: a token a character)
	line := int(window * (1 - FallbackMargin))
	down := errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
	declines := func(*testing.T) Compactor {
		return CompactorFunc(func(context.Context, []*schema.Message, int, TokenCounter) ([]*schema.Message, error) {
			return nil, nil
		})
	}
	tests := []struct {
		name     string
		size     int
		at       float64
		disable  bool
		comp     func(t *testing.T) Compactor
		wantErr  bool // Report.Err holds the compaction's failure
		fallback bool
	}{
		{name: "declined just below the window", size: 970, comp: declines, fallback: true},
		{name: "declined just above the line", size: line + 1, comp: declines, fallback: true},
		{name: "shrank too little", size: 999, fallback: true, comp: func(*testing.T) Compactor {
			return CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				out := slices.Clone(msgs)
				out[1] = user("task") // 46 tokens less: 953, still above the line
				return out, nil
			})
		}},
		{name: "result not smaller, below the window", size: 970, wantErr: true, fallback: true, comp: func(*testing.T) Compactor {
			return CompactorFunc(func(_ context.Context, msgs []*schema.Message, _ int, _ TokenCounter) ([]*schema.Message, error) {
				return slices.Clone(msgs), nil
			})
		}},
		{name: "summarizer failed, below the window", size: 970, wantErr: true, fallback: true, comp: func(t *testing.T) Compactor {
			c, _, _ := scNew(t, &scModel{t: t, fixed: &scStep{err: down}}, scConfig{})
			return c
		}},
		{name: "CompactAt above the line: triggered there", size: 970, at: 1, comp: declines, fallback: true},
		{name: "declined at the line: nothing to do", size: line, comp: declines},
		{name: "declined below the line", size: 900, comp: declines},
		{name: "DisableFallback", size: 970, disable: true, comp: declines},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var observed Report
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: tc.comp(t), ContextWindow: window, CompactAt: tc.at,
				TokenCounter: fc1, Logger: discardLogger(), DisableFallback: tc.disable,
				Observer: ObserverFunc(func(_ context.Context, r Report) { observed = r })})
			if err != nil {
				t.Fatal(err)
			}
			in := fmConversation(t, tc.size)
			st := &hooks.State{Messages: slices.Clone(in), StepCount: 4}
			r, err := h.Decide(context.Background(), st)
			if err != nil || !r.Triggered || r.Estimated != tc.size {
				t.Fatalf("triggered=%v estimated=%d err=%v; want triggered at %d", r.Triggered, r.Estimated, err, tc.size)
			}
			if (r.Err != nil) != tc.wantErr {
				t.Errorf("Report.Err = %v, want an error: %v", r.Err, tc.wantErr)
			}
			after := count(fc1, st.Messages...)
			if !tc.fallback {
				if r.Fallback != "" || observed.Fallback != "" || r.Compacted || !slices.Equal(st.Messages, in) {
					t.Fatalf("fallback %q, compacted %v, %d tokens from %d: want the conversation untouched", r.Fallback, r.Compacted, after, tc.size)
				}
				return
			}
			if r.Fallback != StrategyToolResultPruning || observed.Fallback != r.Fallback {
				t.Fatalf("Fallback = %q (observer %q), want %q", r.Fallback, observed.Fallback, StrategyToolResultPruning)
			}
			if !r.Compacted || float64(after) > window*(1-FallbackMargin) || r.TokensAfter != after {
				t.Errorf("compacted=%v, %d tokens (Report %d); want at most %d", r.Compacted, after, r.TokensAfter, line)
			}
			if err := shape.NewFaults(in, st.Messages); err != nil {
				t.Errorf("the fallback broke tool-call pairing: %v", err)
			}
			if last := st.Messages[len(st.Messages)-1]; last != in[len(in)-1] {
				t.Errorf("the newest message was not kept: %q", last.Content)
			}
		})
	}
}
