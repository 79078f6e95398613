package compaction

import (
	"context"
	"log/slog"
	"math"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// primedCounter counts the rendering of the messages, one token per
// character, plus a fixed charge per Count call: what a provider's
// token-counting endpoint reports, which counts the request's own framing
// once however many messages it holds. It is not an AdditiveCounter, and
// the sum of its counts of single messages is more than its count of them
// together.
type primedCounter struct{ perCall int }

func (p primedCounter) Count(_ context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	return p.perCall + render.RuneLen(Render(messages, RenderOptions{})) + render.RuneLen(RenderTools(tools)), nil
}

// verbatimTail is how many of the newest messages of out are the caller's
// own messages, in place.
func verbatimTail(msgs, out []*schema.Message) int {
	tail := 0
	for k := 1; k <= len(out) && k <= len(msgs) && out[len(out)-k] == msgs[len(msgs)-k]; k++ {
		tail = k
	}
	return tail
}

// The verbatim floor of a deep compaction is what the newest messages hold
// together, as the counter measures them: the newest messages kept are at
// least keep tokens by the compaction's own counter, whatever the counter,
// and no more of them than that takes (with the oldest kept step left out,
// the rest holds less).
func TestDeepCompactionFloorIsMeasuredAsAWhole(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		counter TokenCounter
		size    int // characters of each tool result
		keep    int
	}{
		{"fake counter", fc1, 40, 1500},
		{"default counter", DefaultCounter(), 160, 600},
		{"counter charging each request", primedCounter{perCall: 30}, 40, 1500},
		{"counter charging each request, large results", primedCounter{perCall: 30}, 400, 3000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := deepConversation(0, 80, tc.size)
			target := count(tc.counter, msgs...) / 2
			c, _, _ := scNew(t, scFixed(t, "short summary"), scConfig{})
			ctx := planning.WithDeep(context.Background(), planning.Deep{Keep: tc.keep, Limit: math.MaxInt})
			out, err := c.Compact(ctx, msgs, target, tc.counter)
			if err != nil || out == nil {
				t.Fatalf("deep compaction: %v, %d messages", err, len(out))
			}
			tail := verbatimTail(msgs, out)
			held := count(tc.counter, msgs[len(msgs)-tail:]...)
			if held < tc.keep {
				t.Errorf("the newest %d messages hold %d tokens together, below the floor of %d", tail, held, tc.keep)
			}
			// The tail starts at a step (a call and its result): without
			// that step it must hold less than the floor, or the floor
			// kept more than it needs.
			if rest := msgs[len(msgs)-tail+2:]; count(tc.counter, rest...) >= tc.keep {
				t.Errorf("the newest %d messages hold %d tokens without their oldest step; the floor is %d",
					tail, count(tc.counter, rest...), tc.keep)
			}
			if err := shape.NewFaults(msgs, out); err != nil {
				t.Error(err)
			}
		})
	}
}

// Through the hook, under its defaults (deep compactions), a compaction
// leaves at least a fifth of the window verbatim by the hook's counter,
// also when that counter charges each request a fixed part.
func TestHookDeepCompactionKeepsAFifthUnderAnyCounter(t *testing.T) {
	t.Parallel()
	const window = 20000
	cases := []struct {
		name    string
		counter TokenCounter
	}{
		{"fake counter", fc1},
		{"counter charging each request", primedCounter{perCall: 30}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := scNew(t, scFixed(t, "short summary"), scConfig{})
			h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: window,
				TokenCounter: tc.counter, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			msgs := deepConversation(0, 300, 20)
			state := &hooks.State{Messages: msgs}
			r, err := h.Decide(context.Background(), state)
			if err != nil || !r.Compacted || !r.Deep {
				t.Fatalf("compacted %v, deep %v, err %v", r.Compacted, r.Deep, err)
			}
			tail := verbatimTail(msgs, state.Messages)
			if held := count(tc.counter, msgs[len(msgs)-tail:]...); held < window/5 {
				t.Errorf("the newest %d messages hold %d tokens, below a fifth of the window (%d)", tail, held, window/5)
			}
		})
	}
}
