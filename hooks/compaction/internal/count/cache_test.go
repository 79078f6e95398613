package count

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// cachedAndPlain returns two counters with the same settings, one with the
// per-message cache (bounded at max entries) and one without.
func cachedAndPlain(t *testing.T, ratio float64, max int) (cached, plain *Approx) {
	t.Helper()
	return NewApprox(Settings{CharsPerToken: ratio, CacheEntries: max}), NewApprox(Settings{CharsPerToken: ratio, DisableCache: true})
}

func sameCount(t *testing.T, cached, plain *Approx, msgs []*schema.Message, step string) {
	t.Helper()
	ctx := context.Background()
	got, err := cached.Count(ctx, msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := plain.Count(ctx, msgs, nil)
	if got != want {
		t.Fatalf("%s: cached Count = %d, uncached %d (%d messages)", step, got, want, len(msgs))
	}
}

// TestCostCacheNeverChangesACount is the cache's property test: whatever a
// sequence of counts does to conversations (grow them, compact a middle
// range into a new message, fork them, share messages between them, put nil
// or the same message twice, replace a field's value, keep counting a
// conversation while others push the cache past its bound), every cached
// count equals the uncached count.
func TestCostCacheNeverChangesACount(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 14))
	for _, max := range []int{16, 64, defaultCacheEntries} {
		cached, plain := cachedAndPlain(t, 3.3, max)
		convs := [][]*schema.Message{randomMessages(r, 10), randomMessages(r, 3)}
		for range 600 {
			k := r.IntN(len(convs))
			c := convs[k]
			switch op := r.IntN(9); {
			case op < 3 || len(c) < 4: // the agent appends a step
				c = append(c, withReasoning(r, randomMessages(r, 1+r.IntN(3)))...)
			case op == 3: // a compaction: a middle range becomes one new message
				i := 1 + r.IntN(len(c)-2)
				j := i + 1 + r.IntN(len(c)-i-1)
				c = append(append(append([]*schema.Message{}, c[:i]...), user("<conversation_summary>s</conversation_summary>")), c[j:]...)
			case op == 4: // a fork: another run continues from a copy
				convs = append(convs, append(append([]*schema.Message{}, c...), randomMessages(r, 2)...))
			case op == 5: // nil and repeated messages
				c = append(append([]*schema.Message{}, c...), nil, c[r.IntN(len(c))])
			case op == 6: // a caller sets Content of a counted message to a new value
				m := c[r.IntN(len(c))]
				if m != nil {
					m.Content += "edited"
				}
			case op == 7: // messages shared with another conversation
				other := convs[r.IntN(len(convs))]
				c = append(append([]*schema.Message{}, c...), other[r.IntN(len(other))])
			default: // the same conversation again, unchanged
			}
			convs[k] = c
			sameCount(t, cached, plain, c, "step")
			if n := cached.costs.len(); n > max {
				t.Fatalf("cache holds %d entries, bound %d", n, max)
			}
		}
	}
}

func withReasoning(r *rand.Rand, msgs []*schema.Message) []*schema.Message {
	for _, m := range msgs {
		if r.IntN(3) == 0 {
			m.ReasoningContent = "thinking: " + m.Content
		}
	}
	return msgs
}

// TestCostCacheFollowsNewMessagesOnly: a conversation counted again with one
// more message measures that message only; the rest is remembered.
func TestCostCacheFollowsNewMessagesOnly(t *testing.T) {
	t.Parallel()
	c, _ := cachedAndPlain(t, 4, 0)
	r := rand.New(rand.NewPCG(1, 2))
	msgs := randomMessages(r, 20)
	measured := 0
	measure := func(m *schema.Message) Cost { measured++; return c.cost(new(render.Tally), m) }
	c.costs.sum(msgs, measure)
	if measured != 20 {
		t.Fatalf("first count measured %d messages, want 20", measured)
	}
	measured = 0
	c.costs.sum(append(msgs, user("next")), measure)
	if measured != 1 {
		t.Errorf("count after one new message measured %d messages, want 1", measured)
	}
	measured = 0
	edited := append([]*schema.Message{}, msgs...)
	edited[10] = user("replaced")
	c.costs.sum(edited, measure)
	if measured != 10 {
		t.Errorf("count after replacing message 10 of 20 measured %d messages, want the 10 from there on", measured)
	}
}

// TestCostCacheLongerThanItsBound: a conversation longer than the bound
// keeps its first max messages remembered and measures the rest each time.
func TestCostCacheLongerThanItsBound(t *testing.T) {
	t.Parallel()
	c, plain := cachedAndPlain(t, 4, 16)
	msgs := randomMessages(rand.New(rand.NewPCG(7, 8)), 20)
	measured := 0
	measure := func(m *schema.Message) Cost { measured++; return c.cost(new(render.Tally), m) }
	for round := range 3 {
		measured = 0
		got := c.costs.sum(msgs, measure)
		var want Cost
		for _, m := range msgs {
			want = want.Add(plain.MessageCost(m))
		}
		if got != want {
			t.Fatalf("round %d: sum %+v, uncached %+v", round, got, want)
		}
		if wantMeasured := map[bool]int{true: 20, false: 4}[round == 0]; measured != wantMeasured {
			t.Errorf("round %d measured %d messages, want %d", round, measured, wantMeasured)
		}
		if n := c.costs.len(); n != 16 {
			t.Errorf("round %d: cache holds %d entries, want its bound, 16", round, n)
		}
	}
}

// TestCostCacheKeepsNothingAlive: counted messages are collected once the
// caller drops them, and the cache then matches nothing at their addresses,
// so the conversations allocated afterwards (where the old addresses are
// reused) still count as uncached.
func TestCostCacheKeepsNothingAlive(t *testing.T) {
	cached, plain := cachedAndPlain(t, 4, 1<<10)
	r := rand.New(rand.NewPCG(5, 6))
	var watch []weak.Pointer[schema.Message]
	for range 50 {
		msgs := randomMessages(r, 12)
		sameCount(t, cached, plain, msgs, "before collection")
		for _, m := range msgs {
			watch = append(watch, weak.Make(m))
		}
	}
	runtime.GC()
	runtime.GC()
	alive := 0
	for _, w := range watch {
		if w.Value() != nil {
			alive++
		}
	}
	if alive > 0 {
		t.Errorf("%d of %d counted messages still alive after the caller dropped them: the cache keeps them", alive, len(watch))
	}
	// Same shapes, new texts: many land where dropped messages were.
	for range 200 {
		sameCount(t, cached, plain, randomMessages(r, 12), "after collection")
	}
	// The hardest case for an identity cache: conversations whose messages
	// differ only behind their headers (same literal Content, tool-call
	// lists of one element with arguments of another length), built the
	// same way after the previous one is collected, so the allocator hands
	// out the same addresses for the messages and their lists alike.
	for round := range 20 {
		conv := make([]*schema.Message, 12)
		for i := range conv {
			conv[i] = &schema.Message{Role: schema.Assistant, Content: "calling",
				ToolCalls: []schema.ToolCall{{ID: "c", Function: schema.FunctionCall{Name: "f", Arguments: rep("a", 1+round*7+i)}}}}
		}
		sameCount(t, cached, plain, conv, "same shapes after collection")
		runtime.GC()
	}
	if n := cached.costs.len(); n > 1<<10 {
		t.Errorf("cache holds %d entries, bound %d", n, 1<<10)
	}
}

// TestCostCacheConcurrentRuns: runs sharing one counter, each growing its own
// conversation from a shared system message, always get the uncached count.
func TestCostCacheConcurrentRuns(t *testing.T) {
	t.Parallel()
	cached, plain := cachedAndPlain(t, 4, 256)
	sys := schema.SystemMessage("you are a careful agent")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 99))
			conv := []*schema.Message{sys, user("task")}
			for range 60 {
				conv = append(conv, randomMessages(r, 1+r.IntN(3))...)
				ctx := context.Background()
				got, _ := cached.Count(ctx, conv, nil)
				want, _ := plain.Count(ctx, conv, nil)
				if got != want {
					t.Errorf("run %d: cached %d, uncached %d", g, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCostCacheAssumesNoEdits documents the limit of the cache: Content set
// to a new string is seen; any other edit of a counted message (here, the
// tool-call list replaced) keeps the old cost, which is why DisableCache
// exists.
func TestCostCacheAssumesNoEdits(t *testing.T) {
	t.Parallel()
	cached, plain := cachedAndPlain(t, 1, 0)
	msgs := randomMessages(rand.New(rand.NewPCG(3, 4)), 10)
	tc := call("c1")
	msgs = append(msgs, tc)
	sameCount(t, cached, plain, msgs, "first count")
	tc.Content = "a new value for a field"
	sameCount(t, cached, plain, msgs, "after setting Content")
	before, _ := cached.Count(context.Background(), msgs, nil)
	tc.ToolCalls = []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "f", Arguments: `{"much":"longer arguments than before"}`}}}
	stale, _ := cached.Count(context.Background(), msgs, nil)
	fresh, _ := plain.Count(context.Background(), msgs, nil)
	if stale != before || fresh == before {
		t.Errorf("tool calls replaced: cached %d (before %d), uncached %d; the documented limit changed, update the docs", stale, before, fresh)
	}
}

func TestCostCacheConfig(t *testing.T) {
	t.Parallel()
	c := NewApprox(Settings{DisableCache: true, CacheEntries: 10})
	if c.costs != nil {
		t.Error("DisableCache left a cache")
	}
	if d := NewApprox(Settings{}); d.costs == nil || d.costs.max != defaultCacheEntries {
		t.Errorf("default counter cache = %+v", d.costs)
	}
}

// TestCostCacheConversationsSharingTheirStart: conversations that share
// their first messages (a system prompt and a few-shot exchange, the same
// values) are counted in turn; each keeps its own remembered sequence, so a
// count measures only what was appended since that conversation's last.
func TestCostCacheConversationsSharingTheirStart(t *testing.T) {
	t.Parallel()
	c, _ := cachedAndPlain(t, 4, 0)
	r := rand.New(rand.NewPCG(3, 4))
	shared := randomMessages(r, 3)
	convs := make([][]*schema.Message, 4)
	for i := range convs {
		convs[i] = append(append([]*schema.Message{}, shared...), randomMessages(r, 20)...)
	}
	measured := 0
	measure := func(m *schema.Message) Cost { measured++; return c.cost(new(render.Tally), m) }
	for _, conv := range convs {
		c.costs.sum(conv, measure)
	}
	for round := range 3 {
		for i := range convs {
			convs[i] = append(convs[i], user("next"))
			measured = 0
			c.costs.sum(convs[i], measure)
			if measured != 1 {
				t.Fatalf("round %d, conversation %d: measured %d messages after one was appended, want 1", round, i, measured)
			}
		}
	}
}

// TestMessageCostsEqualMessageCost checks that the costs the planner reads
// through the cache are MessageCost's, for a conversation counted before
// (all from the cache), one that grew since (part from it), one never
// counted, one too short to be cached, and with the cache off.
func TestMessageCostsEqualMessageCost(t *testing.T) {
	t.Parallel()
	var conv []*schema.Message
	conv = append(conv, schema.SystemMessage("sys"))
	for i := range 40 {
		conv = append(conv, schema.UserMessage(fmt.Sprintf("question %d with some text é", i)),
			schema.AssistantMessage("", []schema.ToolCall{{ID: fmt.Sprint("c", i), Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"/a"}`}}}),
			schema.ToolMessage(fmt.Sprintf("result %d\nline two", i), fmt.Sprint("c", i)))
	}
	off := NewApprox(Settings{DisableCache: true})
	for _, tt := range []struct {
		name    string
		counter *Approx
		counted []*schema.Message
		asked   []*schema.Message
	}{
		{"counted before", NewApprox(Settings{}), conv, conv},
		{"grown since", NewApprox(Settings{}), conv[:50], conv},
		{"never counted", NewApprox(Settings{}), nil, conv},
		{"short", NewApprox(Settings{}), conv[:3], conv[:3]},
		{"cache off", off, conv, conv},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.counted != nil {
				if _, err := tt.counter.Count(context.Background(), tt.counted, nil); err != nil {
					t.Fatal(err)
				}
			}
			got := tt.counter.Costs(tt.asked)
			for i, m := range tt.asked {
				if want := tt.counter.MessageCost(m); got[i] != want {
					t.Fatalf("message %d: %v, MessageCost %v", i, got[i], want)
				}
			}
		})
	}
}
