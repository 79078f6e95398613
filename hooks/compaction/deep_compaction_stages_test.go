package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// A Pipeline hands its stages the ctx of its Compact call: after a pruning
// stage that cannot reach the target, its summarization stage compacts
// deep, below what the same pipeline keeps without the ask, and keeps the
// floor of the newest messages the caller gave verbatim.
func TestDeepCompactionThroughAPipeline(t *testing.T) {
	t.Parallel()
	// Three large old results a pruning stage clears, then steps whose
	// results are too small to prune (ToolResultPruningConfig.MinTokens).
	msgs := []*schema.Message{sys("rules"), user("current request")}
	for i := range 3 {
		id := fmt.Sprintf("big%d", i)
		msgs = append(msgs, call(id), result(id, rep("B", 1200)))
	}
	for i := range 40 {
		id := fmt.Sprintf("s%d", i)
		msgs = append(msgs, call(id), result(id, rep("x", 150)))
	}
	const keep = 2500
	target := count(fc1, msgs...) / 3
	cases := []struct {
		name string
		deep bool
	}{{"deep", true}, {"usual", false}}
	kept := map[bool]int{}
	var mu sync.Mutex
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneAll(msgs)
			prune, err := NewToolResultPruningCompactor(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			sum, _, rounds := scNew(t, scFixed(t, "short summary"), scConfig{})
			p, err := NewPipeline(prune, sum)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.deep {
				ctx = planning.WithDeep(ctx, planning.Deep{Keep: keep, Limit: math.MaxInt})
			}
			out, err := p.Compact(ctx, msgs, target, fc1)
			if err != nil || out == nil {
				t.Fatalf("pipeline: %v, %d messages", err, len(out))
			}
			if !slices.ContainsFunc(out, func(m *schema.Message) bool { return IsStrategy(m, StrategyToolResultPruning) }) &&
				!slices.ContainsFunc(out, func(m *schema.Message) bool { return IsStrategy(m, StrategySummarization) }) {
				t.Fatalf("neither stage left its mark")
			}
			if len(*rounds) != 1 {
				t.Errorf("%d summarization rounds, want 1", len(*rounds))
			}
			if tc.deep {
				checkDeepResult(t, msgs, before, out, keep, fc1)
			}
			mu.Lock()
			kept[tc.deep] = count(fc1, out...)
			mu.Unlock()
		})
	}
	if kept[true] >= kept[false] {
		t.Errorf("the deep pipeline left %d tokens, the usual one %d: the summarization stage did not go deep", kept[true], kept[false])
	}
}

// recordingCompactor is a custom compactor that records the targets it is
// handed and drops the oldest half of the steps.
type recordingCompactor struct {
	mu      sync.Mutex
	targets []int
}

func (c *recordingCompactor) Compact(_ context.Context, msgs []*schema.Message, target int, _ TokenCounter) ([]*schema.Message, error) {
	c.mu.Lock()
	c.targets = append(c.targets, target)
	c.mu.Unlock()
	half := 2 + (len(msgs)-2)/4*2
	return append(slices.Clip(msgs[:2]), msgs[half:]...), nil
}

// Compactors other than a SummarizationCompactor know nothing of deep
// compactions: under the default prices (deep) and with AimAtCompactTo they
// are handed the same target and leave the same conversation.
func TestDeepCompactionLeavesOtherCompactorsAlone(t *testing.T) {
	t.Parallel()
	const window = 20000
	newSliding := func() Compactor {
		c, err := NewSlidingWindowCompactor(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name string
		make func() Compactor
	}{
		{"sliding window", newSliding},
		{"custom", func() Compactor { return &recordingCompactor{} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			type outcome struct {
				deep    bool
				target  int
				targets []int
				result  []string
			}
			run := func(aim bool) outcome {
				c := tc.make()
				h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: window,
					TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), AimAtCompactTo: aim, DisableFallback: true})
				if err != nil {
					t.Fatal(err)
				}
				state := &hooks.State{Messages: deepConversation(0, 50, 300)}
				r, err := h.Decide(context.Background(), state)
				if err != nil || !r.Compacted {
					t.Fatalf("compacted %v, err %v", r.Compacted, err)
				}
				o := outcome{deep: r.Deep, target: r.Target}
				if rc, ok := c.(*recordingCompactor); ok {
					o.targets = rc.targets
				}
				for _, m := range state.Messages {
					o.result = append(o.result, string(m.Role)+":"+m.Content)
				}
				return o
			}
			deepRun, aimed := run(false), run(true)
			if !deepRun.deep || aimed.deep {
				t.Fatalf("Report.Deep %v by default, %v with AimAtCompactTo; want true, false", deepRun.deep, aimed.deep)
			}
			if deepRun.target != aimed.target || !slices.Equal(deepRun.targets, aimed.targets) {
				t.Errorf("targets %d %v by default, %d %v with AimAtCompactTo", deepRun.target, deepRun.targets, aimed.target, aimed.targets)
			}
			if !reflect.DeepEqual(deepRun.result, aimed.result) {
				t.Errorf("the conversation differs: %d messages by default, %d with AimAtCompactTo", len(deepRun.result), len(aimed.result))
			}
		})
	}
}

// Under MaxSummarizerInputTokens a deep round cannot take everything older
// than the floor: the compaction goes on in rounds, each within the cap and
// each outside the floor, and the floor stays verbatim.
func TestDeepCompactionUnderMaxSummarizerInputTokens(t *testing.T) {
	t.Parallel()
	const keep, maxInput = 3000, 4000
	cases := []struct {
		name  string
		limit int
	}{
		{"no limit", math.MaxInt},
		{"limit at the target", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := deepConversation(0, 40, 300)
			before := cloneAll(msgs)
			target := count(fc1, msgs...) / 2
			limit := tc.limit
			if limit < 0 {
				limit = target
			}
			var rounds []Round
			c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: scFixed(t, "short summary"),
				MaxSummarizerInputTokens: maxInput, Logger: slog.New(slog.DiscardHandler), Ledger: &LedgerConfig{Disabled: true},
				OnRound: func(_ context.Context, r Round) { rounds = append(rounds, r) }})
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: limit}), msgs, target, fc1)
			if err != nil || out == nil {
				t.Fatalf("deep compaction: %v, %d messages", err, len(out))
			}
			// What lies before the floor is far more than one round may
			// read.
			if older := count(fc1, msgs...) - keep; older <= maxInput || len(rounds) < 2 {
				t.Errorf("%d rounds for %d tokens before the floor under a cap of %d", len(rounds), older, maxInput)
			}
			for i, r := range rounds {
				if r.TranscriptTokens > maxInput {
					t.Errorf("round %d sent a transcript of %d tokens, above the cap of %d", i, r.TranscriptTokens, maxInput)
				}
			}
			checkDeepResult(t, msgs, before, out, keep, fc1)
			if got := count(fc1, out...); got > target+target/planning.CloseEnough {
				t.Errorf("%d tokens left, above the band over the target %d", got, target)
			}
		})
	}
}

// A cache-aligned deep round names exactly the messages it replaces, by
// position (the current request left out when the span crosses it) and by
// the call id of the result that closes the span.
func TestDeepCompactionCacheAlignedNamesTheSpan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		turns, steps int
		from         int    // the floor's first message
		span         string // positions from 1
		last, next   string // the call ids closing the span and opening the floor
	}{
		// Steps at 2-61; the floor starts at the call of step 20.
		{"one task", 0, 30, 2 + 2*20, "Messages 3-42 of", "s19", "s20"},
		// Two earlier turns at 1-24 (a request, 5 steps and a reply each),
		// the current request at 25, its steps at 26-35; the floor starts
		// at the call of step 3.
		{"across the current request", 2, 5, 26 + 2*3, "Messages 2-25 and 27-32 of", "s2", "s3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := deepConversation(tc.turns, tc.steps, 300)
			before := cloneAll(msgs)
			keep := count(fc1, msgs[tc.from:]...)
			chat := scFixed(t, "short summary")
			var rounds []Round
			c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: chat, CacheAligned: true,
				Logger: slog.New(slog.DiscardHandler), Ledger: &LedgerConfig{Disabled: true},
				OnRound: func(_ context.Context, r Round) { rounds = append(rounds, r) }})
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Compact(planning.WithDeep(context.Background(), planning.Deep{Keep: keep, Limit: math.MaxInt}), msgs, count(fc1, msgs...)/2, fc1)
			if err != nil || out == nil || len(rounds) != 1 {
				t.Fatalf("deep compaction: %v, %d messages, %d rounds", err, len(out), len(rounds))
			}
			if rounds[0].Shape != ShapeCacheAligned {
				t.Fatalf("round shape %q, want %q", rounds[0].Shape, ShapeCacheAligned)
			}
			prompts := chat.prompts()
			instruction := prompts[len(prompts)-1]
			if i := strings.LastIndex(instruction, "\n"+"Stop working"); i >= 0 {
				instruction = instruction[i+1:]
			}
			if !strings.Contains(instruction, tc.span) {
				t.Errorf("instruction does not name %q:\n%.300s", tc.span, instruction)
			}
			if !strings.Contains(instruction, tc.last) || strings.Contains(instruction, tc.next) {
				t.Errorf("instruction should close the span on the result of %s and not name %s:\n%.300s", tc.last, tc.next, instruction)
			}
			checkDeepResult(t, msgs, before, out, keep, fc1)
		})
	}
}
