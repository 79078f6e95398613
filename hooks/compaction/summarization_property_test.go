package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// propModel is a stateless summarizer safe for concurrent use: a short
// summary derived from the prompt, and a failure for about one prompt in
// eleven so that partial progress is exercised too.
type propModel struct{}

func (propModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	n := len(in[len(in)-1].Content)
	if n%11 == 0 {
		return nil, errors.New("flaky summarizer")
	}
	return schema.AssistantMessage(fmt.Sprintf("- covered %d characters", n), nil), nil
}

func (m propModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// propGen writes random agent conversations: every call is answered right
// after it (now and then with a system message in between), except possibly
// a trailing in-flight call.
type propGen struct {
	r   *rand.Rand
	ids int
}

func (g *propGen) words(max int) string { return rep("word ", 1+g.r.IntN(max)) }

// steps appends up to n agent steps, now and then separated by a note of
// another compactor or a system message.
func (g *propGen) steps(msgs []*schema.Message, n int) []*schema.Message {
	for range n {
		switch g.r.IntN(10) {
		case 0:
			msgs = append(msgs, note("sliding_window", "[note]"))
		case 1:
			msgs = append(msgs, sys("mid-run rule"))
		}
		if g.r.IntN(4) == 0 {
			msgs = append(msgs, asst(g.words(30)))
			continue
		}
		calls := 1 + g.r.IntN(3)
		ids := make([]string, calls)
		for i := range ids {
			g.ids++
			ids[i] = fmt.Sprintf("id%d", g.ids)
		}
		msgs = append(msgs, call(ids...))
		if g.r.IntN(12) == 0 {
			// A message between a call and its results (F8): the planner
			// must still keep the pair together.
			msgs = append(msgs, sys("mid-call rule"))
		}
		for _, id := range ids {
			msgs = append(msgs, result(id, g.words(60)))
		}
	}
	return msgs
}

// turn appends a real user message and its steps.
func (g *propGen) turn(msgs []*schema.Message) []*schema.Message {
	return g.steps(append(msgs, user(g.words(20))), g.r.IntN(5))
}

// inFlight appends a call with some of its results missing.
func (g *propGen) inFlight(msgs []*schema.Message) []*schema.Message {
	g.ids += 2
	a, b := fmt.Sprintf("id%d", g.ids-1), fmt.Sprintf("id%d", g.ids)
	msgs = append(msgs, call(a, b))
	if g.r.IntN(2) == 0 {
		msgs = append(msgs, result(a, g.words(20)))
	}
	return msgs
}

func (g *propGen) conversation() []*schema.Message {
	var msgs []*schema.Message
	for range g.r.IntN(3) {
		msgs = append(msgs, sys(g.words(10)))
	}
	if g.r.IntN(5) == 0 {
		msgs = append(msgs, summary(g.words(10), 3))
	}
	turns := g.r.IntN(5)
	if turns == 0 {
		msgs = g.steps(msgs, 1+g.r.IntN(5))
	}
	for range turns {
		msgs = g.turn(msgs)
	}
	return msgs
}

// propConversation is one random conversation, possibly ending in flight.
func propConversation(r *rand.Rand) []*schema.Message {
	g := &propGen{r: r}
	msgs := g.conversation()
	if r.IntN(4) == 0 {
		msgs = g.inFlight(msgs)
	}
	return msgs
}

// propSnapshot captures what a mutation of a conversation would change: the
// message pointers, their full rendering (roles, texts, calls, ids) and their
// Extra maps. It is much cheaper than a deep copy, which keeps this test fast
// under -race; the table tests compare against deep copies.
func propSnapshot(msgs []*schema.Message) []string {
	out := make([]string, 0, 2*len(msgs))
	for _, m := range msgs {
		out = append(out, fmt.Sprintf("%p %v", m, m.Extra), RenderMessage(m, RenderOptions{ToolCallIDs: true}))
	}
	return out
}

// propStepsOf finds the agent steps of the current task the way reference
// A.3 defines them, independently of the planner.
func propStepsOf(msgs []*schema.Message) [][]*schema.Message {
	start := 0
	for start < len(msgs) && msgs[start].Role == schema.System && !HasMarkerKey(msgs[start]) {
		start++
	}
	for i := len(msgs) - 1; i >= start; i-- {
		if IsRealUser(msgs[i]) {
			start = i + 1
			break
		}
	}
	var out [][]*schema.Message
	for i := start; i < len(msgs); i++ {
		if msgs[i].Role != schema.Assistant {
			continue
		}
		step := []*schema.Message{msgs[i]}
		for i+1 < len(msgs) && msgs[i+1].Role == schema.Tool {
			i++
			step = append(step, msgs[i])
		}
		out = append(out, step)
	}
	return out
}

// propCheck asserts the invariants of one Compact call.
func propCheck(in, out []*schema.Message, minKeep int, counter TokenCounter) error {
	if out == nil {
		return nil
	}
	if a, b := count(counter, out...), count(counter, in...); a >= b {
		return fmt.Errorf("result has %d tokens, input %d", a, b)
	}
	pos := make(map[*schema.Message]int, len(out))
	for i, m := range out {
		pos[m] = i
	}
	for i := 0; i < len(in) && in[i].Role == schema.System && !HasMarkerKey(in[i]); i++ {
		if i >= len(out) || out[i] != in[i] {
			return fmt.Errorf("system message %d not kept in place", i)
		}
	}
	for i := len(in) - 1; i >= 0; i-- {
		if IsRealUser(in[i]) {
			if _, ok := pos[in[i]]; !ok {
				return fmt.Errorf("task anchor %d dropped", i)
			}
			break
		}
	}
	st := propStepsOf(in)
	last := -1
	for _, step := range st[max(len(st)-minKeep, 0):] {
		for _, m := range step {
			p, ok := pos[m]
			if !ok || p <= last {
				return fmt.Errorf("kept step message %q missing or out of order", RenderMessage(m, RenderOptions{}))
			}
			last = p
		}
	}
	// Every message is an input message or a summary this compactor wrote.
	inSet := make(map[*schema.Message]bool, len(in))
	for _, m := range in {
		inSet[m] = true
	}
	for _, m := range out {
		if !inSet[m] && !IsStrategy(m, StrategySummarization) {
			return fmt.Errorf("new message without a summary marker: %q", m.Content)
		}
	}
	return propPairs(out)
}

// propPairs: every result follows its call, and every call but a trailing
// in-flight one has all its results.
func propPairs(msgs []*schema.Message) error {
	open := map[string]bool{}
	issuedAt := map[string]int{}
	for i, m := range msgs {
		switch m.Role {
		case schema.Assistant:
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
				issuedAt[tc.ID] = i
			}
		case schema.Tool:
			if !open[m.ToolCallID] {
				return fmt.Errorf("result %s at %d has no call before it", m.ToolCallID, i)
			}
			delete(open, m.ToolCallID)
		}
	}
	trailing := len(msgs)
	for trailing > 0 && msgs[trailing-1].Role == schema.Tool {
		trailing--
	}
	trailing-- // the last non-tool message: the only call allowed to be in flight
	for id := range open {
		if issuedAt[id] != trailing {
			return fmt.Errorf("call %s at %d has no result", id, issuedAt[id])
		}
	}
	return nil
}

// TestPropertyRandomConversations runs a few hundred random conversations
// through chained compactions (new steps appended between rounds) on
// compactors shared by concurrent goroutines, and checks every invariant
// after every call. Run under -race it also shows the compactor keeps no
// per-run state.
func TestPropertyRandomConversations(t *testing.T) {
	t.Parallel()
	if err := propPairs(fresh()); err != nil {
		t.Fatalf("checker rejects FRESH: %v", err)
	}
	if err := propPairs([]*schema.Message{user("u"), result("x", "orphan")}); err == nil {
		t.Fatal("checker accepts an orphan result")
	}
	if err := propPairs([]*schema.Message{user("u"), call("a"), asst("next")}); err == nil {
		t.Fatal("checker accepts an unanswered call in the middle")
	}

	compactors := make([]*SummarizationCompactor, 3)
	for k := range compactors {
		c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
			ChatModel: propModel{}, Logger: slog.New(slog.DiscardHandler), MinKeepSteps: scInt(k), ApproximateSummaryTokens: scInt(5 + 10*k)})
		if err != nil {
			t.Fatal(err)
		}
		compactors[k] = c
	}
	counters := []TokenCounter{DefaultCounter(), fc1}
	const workers, perWorker, chain = 8, 40, 3
	var wg sync.WaitGroup
	var compacted, calls atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(42, uint64(w)))
			for n := range perWorker {
				k := r.IntN(len(compactors))
				counter := counters[n%len(counters)]
				g := &propGen{r: r, ids: 1000 * n}
				conv := g.conversation()
				for stage := range chain {
					if stage == chain-1 && r.IntN(3) == 0 {
						conv = g.inFlight(conv)
					}
					before := propSnapshot(conv)
					target := r.IntN(count(counter, conv...) + 1)
					out, err := compactors[k].Compact(context.Background(), conv, target, counter)
					if err != nil {
						t.Errorf("worker %d conversation %d stage %d: %v", w, n, stage, err)
						return
					}
					if !reflect.DeepEqual(propSnapshot(conv), before) {
						t.Errorf("worker %d conversation %d stage %d: input changed", w, n, stage)
						return
					}
					if err := propCheck(conv, out, k, counter); err != nil {
						t.Errorf("worker %d conversation %d stage %d (min keep %d, target %d): %v\n%s",
							w, n, stage, k, target, err, Render(conv, RenderOptions{ToolCallIDs: true}))
						return
					}
					calls.Add(1)
					if out != nil {
						compacted.Add(1)
						conv = out
					}
					conv = append(append([]*schema.Message(nil), conv...), g.steps(nil, 1+r.IntN(3))...)
					if r.IntN(3) == 0 {
						conv = g.turn(conv)
					}
				}
			}
		}()
	}
	wg.Wait()
	// Guard against a vacuous run: most random targets are below the size.
	t.Logf("%d of %d compactions returned a new conversation", compacted.Load(), calls.Load())
	if compacted.Load() < calls.Load()/2 {
		t.Errorf("only %d of %d compactions did anything", compacted.Load(), calls.Load())
	}
}
