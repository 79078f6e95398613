package compaction

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
)

// scStep is one scripted answer of scModel.
type scStep struct {
	text   string             // answer with an assistant message holding this text
	reply  *schema.Message    // or answer with exactly this message (may be nil)
	raw    bool               // use reply even when it is nil
	err    error              // or fail
	panic  any                // or panic
	cancel context.CancelFunc // called before answering
}

// scModel is a scripted model.BaseChatModel, the reference's summarizer(...)
// helper: it answers from script in order (or always with fixed) and records
// every prompt as the texts of its messages joined with "\n". A call the
// script does not cover fails the test.
type scModel struct {
	t      testing.TB
	mu     sync.Mutex
	script []scStep
	fixed  *scStep
	seen   []string
}

func (m *scModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	texts := make([]string, len(in))
	for i, msg := range in {
		texts[i] = msg.Content
	}
	m.mu.Lock()
	m.seen = append(m.seen, strings.Join(texts, "\n"))
	var st scStep
	switch {
	case m.fixed != nil:
		st = *m.fixed
	case len(m.script) > 0:
		st, m.script = m.script[0], m.script[1:]
	default:
		m.mu.Unlock()
		m.t.Errorf("unexpected summarizer call")
		return nil, errors.New("unexpected summarizer call")
	}
	m.mu.Unlock()
	if st.cancel != nil {
		st.cancel()
	}
	switch {
	case st.panic != nil:
		panic(st.panic)
	case st.err != nil:
		return nil, st.err
	case st.reply != nil || st.raw:
		return st.reply, nil
	}
	return schema.AssistantMessage(st.text, nil), nil
}

func (m *scModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scModel) prompts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

func scScript(t testing.TB, steps ...scStep) *scModel { return &scModel{t: t, script: steps} }
func scFixed(t testing.TB, text string) *scModel {
	return &scModel{t: t, fixed: &scStep{text: text}}
}

// scConfig holds what a test varies; zero minKeep/approx mean the defaults.
type scConfig struct {
	minKeep, approx *int
	instruction     string
	raise           bool
}

func scInt(n int) *int { return &n }

// scNew builds a compactor whose log goes to the returned buffer and whose
// rounds are collected in the returned slice. The identifier ledger is off:
// these are the reference's cases, and the reference has no ledger (its
// effect is tested in ledger_test.go and summarization_ledger_test.go).
func scNew(t testing.TB, m model.BaseChatModel, cfg scConfig) (*SummarizationCompactor, *bytes.Buffer, *[]Round) {
	t.Helper()
	var buf bytes.Buffer
	var rounds []Round
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{
		ChatModel: m, MinKeepSteps: cfg.minKeep, ApproximateSummaryTokens: cfg.approx,
		SummaryInstruction: cfg.instruction, RaiseOnFailure: cfg.raise,
		Logger:  slog.New(slog.NewTextHandler(&buf, nil)),
		OnRound: func(_ context.Context, r Round) { rounds = append(rounds, r) },
		Ledger:  &LedgerConfig{Disabled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, &buf, &rounds
}

// scRound is the part of a Round a reference table pins down.
type scRound struct {
	tier          string
	indices       []int
	before, after int
}

func scRounds(rs []Round) []scRound {
	out := make([]scRound, len(rs))
	for i, r := range rs {
		out[i] = scRound{r.Tier, r.Indices, r.TokensBefore, r.TokensAfter}
	}
	return out
}

// TestCompactReference ports C1, C2, C5, C7, C8, C9 and C13 of reference
// A.10 (counter FC1). Token numbers are the reference's: every message here
// renders in Go exactly as in Python (no tool arguments other than {}).
func TestCompactReference(t *testing.T) {
	t.Parallel()
	c5 := []*schema.Message{sys("rules"), summary("older history", 8), user("previous task"),
		summary("early previous-task work", 4), call("previous"), result("previous", "previous result"),
		asst("previous final answer"), user("current task"), call("current"), result("current", "current result")}
	c7 := []*schema.Message{sys("rules"), user(rep("old question ", 30)), asst(rep("old answer ", 30)),
		user("current task"), asst(rep("old step ", 30)), asst("new step")}
	c8 := []*schema.Message{sys("rules"), user("old"), asst("answer"), user("current")}
	reasoningOnly := &schema.Message{Role: schema.Assistant, ReasoningContent: "thinking hard",
		AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeReasoning,
			Reasoning: &schema.MessageOutputReasoning{Text: "more thinking"}}}}
	toolCallReply := schema.AssistantMessage("", []schema.ToolCall{{ID: "x", Function: schema.FunctionCall{Name: "search"}}})
	f := fresh()
	// words is the budget in words a custom instruction's
	// BudgetWordsPlaceholder becomes for a round replacing msgs, as fc1
	// counts them.
	words := func(msgs ...*schema.Message) string {
		n, err := fc1.Count(context.Background(), msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		return request.Words(cost.SummaryBudget(n))
	}

	cases := []struct {
		name      string
		messages  []*schema.Message
		cfg       scConfig
		target    int
		script    []scStep
		want      []*schema.Message // nil: Compact returns nil
		wantErr   error
		errText   string
		prompts   []string // nil: not checked
		rounds    []scRound
		logSubstr string
	}{
		{name: "C1/C13 FRESH, one round then the floor", messages: fresh(), cfg: scConfig{approx: scInt(1)}, target: 1,
			script: []scStep{{text: "async summary"}},
			want:   []*schema.Message{f[0], f[1], summary("async summary", 2), f[4], f[5]},
			// 453 - (35 + 170 + 1) + 61: FRESH minus the first step plus SUM("async summary") at 54+13 chars.
			rounds: []scRound{{TierCurrentTaskSteps, []int{2, 3}, 453, 453 - 206 + 67}}},
		{name: "C2 already fits", messages: []*schema.Message{sys("rules"), user("task")}, target: 10000,
			prompts: []string{}},
		{name: "C5 mixed completed turn, two rounds", messages: c5,
			cfg:    scConfig{approx: scInt(5), instruction: "Summarize this conversation in " + BudgetWordsPlaceholder + " words."},
			target: 1, script: []scStep{{text: "completed previous task"}, {text: "combined history"}},
			want: []*schema.Message{sys("rules"), summary("combined history", 2), user("current task"),
				call("current"), result("current", "current result")},
			prompts: []string{
				// A custom instruction: the transcript alone follows it.
				"Summarize this conversation in " + words(c5[2:7]...) + " words.\n<conversation_to_summarize>\n[user] previous task\n[conversation_summary]\n" +
					"early previous-task work\n[assistant -> tool_call id=previous] search({})\n" +
					"[tool:search id=previous] previous result\n[assistant] previous final answer\n</conversation_to_summarize>",
				"Summarize this conversation in " + words(c5[1], summary("completed previous task", 5)) + " words.\n<conversation_to_summarize>\n[conversation_summary]\nolder history\n" +
					"[conversation_summary]\ncompleted previous task\n</conversation_to_summarize>",
			},
			rounds: []scRound{{TierHistoricalTurns, []int{2, 3, 4, 5, 6}, 367, 245}, {TierHistoricalSummaries, []int{1, 2}, 245, 170}}},
		{name: "C7 a failed second round keeps the first", messages: c7, cfg: scConfig{approx: scInt(1)}, target: 1,
			script: []scStep{{text: "history"}, {err: errors.New("provider unavailable")}},
			want:   []*schema.Message{c7[0], summary("history", 2), c7[3], c7[4], c7[5]},
			rounds: []scRound{{TierHistoricalTurns, []int{1, 2}, 1079, 400}, {TierCurrentTaskSteps, []int{3}, 400, 0}},
			// The reference numbers its step by the conversation of round 2: "old step" is at 3 there.
			logSubstr: "provider unavailable"},
		{name: "C8 a summary that does not shrink, raised", messages: c8, cfg: scConfig{approx: scInt(1), raise: true},
			target: 1, script: []scStep{{text: rep("much longer summary ", 100)}},
			wantErr: ErrSummaryNotSmaller, errText: "59 tokens before and 2083 tokens after"},
		{name: "C8 a summary that does not shrink, logged", messages: c8, cfg: scConfig{approx: scInt(1)},
			target: 1, script: []scStep{{text: rep("much longer summary ", 100)}}, logSubstr: "did not reduce"},
		{name: "C9a empty text", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{text: ""}}, wantErr: ErrNoUsableSummary},
		{name: "C9b reasoning only", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{reply: reasoningOnly}}, wantErr: ErrNoUsableSummary},
		{name: "C9c no reply at all", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{raw: true}}, wantErr: ErrNoUsableSummary},
		{name: "F15 a tool call instead of text", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{reply: toolCallReply}}, wantErr: ErrNoUsableSummary},
		{name: "F10 whitespace-only text", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{text: " \n\t "}}, wantErr: ErrNoUsableSummary},
		{name: "the first round failing returns nil", messages: fresh(), target: 1,
			script: []scStep{{err: errors.New("rate limited")}}, logSubstr: "rate limited"},
		{name: "a model error is wrapped when raised", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{err: errScBoom}}, wantErr: errScBoom},
		{name: "a panicking model is a model error", messages: fresh(), cfg: scConfig{raise: true}, target: 1,
			script: []scStep{{panic: "nil map write"}}, errText: "panicked: nil map write"},
		{name: "a panicking model is logged and the input kept", messages: fresh(), target: 1,
			script: []scStep{{panic: "nil map write"}}, logSubstr: "panicked"},
		{name: "F12 a negative target counts as 0", messages: fresh(), cfg: scConfig{approx: scInt(1)}, target: -100,
			script: []scStep{{text: "async summary"}},
			want:   []*schema.Message{f[0], f[1], summary("async summary", 2), f[4], f[5]}},
		{name: "F3 empty conversation", messages: []*schema.Message{}, target: -5, prompts: []string{}},
		{name: "F4 all system", messages: []*schema.Message{sys("a"), sys("b")}, target: 1, prompts: []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := scScript(t, tc.script...)
			c, logs, rounds := scNew(t, m, tc.cfg)
			before := cloneAll(tc.messages)
			got, err := c.Compact(context.Background(), tc.messages, tc.target, fc1)
			switch {
			case tc.wantErr != nil || tc.errText != "":
				if err == nil {
					t.Fatalf("no error, want %v %q", tc.wantErr, tc.errText)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("err = %v, want it to wrap %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("err = %q, want it to contain %q", err, tc.errText)
				}
				if got != nil {
					t.Errorf("got %d messages with an error", len(got))
				}
			case err != nil:
				t.Fatalf("unexpected error: %v", err)
			case !reflect.DeepEqual(got, tc.want):
				t.Errorf("got\n%s\nwant\n%s", Render(got, RenderOptions{}), Render(tc.want, RenderOptions{}))
			}
			if !reflect.DeepEqual(tc.messages, before) {
				t.Error("Compact changed its input")
			}
			if got := m.prompts(); tc.prompts != nil && (len(got) > 0 || len(tc.prompts) > 0) && !reflect.DeepEqual(got, tc.prompts) {
				t.Errorf("prompts\n%q\nwant\n%q", m.prompts(), tc.prompts)
			}
			if tc.rounds != nil && !reflect.DeepEqual(scRounds(*rounds), tc.rounds) {
				t.Errorf("rounds %+v, want %+v", scRounds(*rounds), tc.rounds)
			}
			if !strings.Contains(logs.String(), tc.logSubstr) {
				t.Errorf("log %q does not mention %q", logs.String(), tc.logSubstr)
			}
			if len(m.script) > 0 {
				t.Errorf("%d scripted answers unused", len(m.script))
			}
		})
	}
}

var errScBoom = errors.New("boom")

// TestCompactEdgeCases runs whole compactions on the conversations of
// reference section F (counter FC1, approx 1, target 1, fixed summary "S").
func TestCompactEdgeCases(t *testing.T) {
	t.Parallel()
	orphan := []*schema.Message{sys("s"), user("task"), result("x", "orphan"), call("c1"), result("c1", rep("r ", 30)), asst("done")}
	trailing := []*schema.Message{sys("s"), user("task"), call("c1"), result("c1", "r"), call("c2")}
	noUser := []*schema.Message{sys("s"), call("c1"), result("c1", "r"), call("c2"), result("c2", "r"), asst("done")}
	notes := []*schema.Message{sys("s"), note("sliding_window", "n1"), user(rep("old ", 20)), asst(rep("a ", 20)),
		user("task"), note("tool_result_pruning", "n2"), call("c1"), result("c1", rep("r ", 20)), asst("done")}
	midSys := []*schema.Message{sys("s"), user("task"), call("c1"), sys("mid"), result("c1", rep("r ", 30)), asst("last")}
	cases := []struct {
		name     string
		messages []*schema.Message
		minKeep  int
		want     []*schema.Message
	}{
		{"F1 orphan result stays", orphan, 1,
			[]*schema.Message{orphan[0], orphan[1], orphan[2], summary("S", 2), orphan[5]}},
		{"F2 trailing in-flight call, min keep 0", trailing, 0,
			[]*schema.Message{trailing[0], trailing[1], summary("S", 3)}},
		{"F4 no real user", noUser, 1,
			[]*schema.Message{noUser[0], summary("S", 4), noUser[5]}},
		{"F5 other strategies' notes survive every round", notes, 1,
			[]*schema.Message{notes[0], notes[1], summary("S", 2), notes[4], notes[5], summary("S", 2), notes[8]}},
		{"F8 mid-task system message stays, its call's result goes with the call", midSys, 1,
			[]*schema.Message{midSys[0], midSys[1], summary("S", 2), midSys[3], midSys[5]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := scNew(t, scFixed(t, "S"), scConfig{minKeep: scInt(tc.minKeep), approx: scInt(1)})
			got, err := c.Compact(context.Background(), tc.messages, 1, fc1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", Render(got, RenderOptions{}), Render(tc.want, RenderOptions{}))
			}
		})
	}
}

// TestSummaryExactlyAsLargeFails is F15's boundary: after == before is not
// smaller. The history turn renders as 47 + 52 chars plus one separator, so
// a summary of 54 + 46 chars replaces it at exactly the same size.
func TestSummaryExactlyAsLargeFails(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{sys("s"), user(rep("x", 40)), asst(rep("y", 40)), user("task")}
	if removed, added := count(fc1, msgs[1], msgs[2]), count(fc1, summary(rep("z", 46), 2)); removed != added {
		t.Fatalf("fixture drifted: removed %d, summary %d", removed, added)
	}
	c, _, _ := scNew(t, scFixed(t, rep("z", 46)), scConfig{approx: scInt(1), raise: true})
	_, err := c.Compact(context.Background(), msgs, 1, fc1)
	if !errors.Is(err, ErrSummaryNotSmaller) {
		t.Fatalf("err = %v, want ErrSummaryNotSmaller", err)
	}
	c, _, _ = scNew(t, scFixed(t, rep("z", 45)), scConfig{approx: scInt(1), raise: true})
	if got, err := c.Compact(context.Background(), msgs, 1, fc1); err != nil || len(got) != 3 {
		t.Fatalf("one char smaller: got %d messages, err %v", len(got), err)
	}
}

// TestCompactAccumulates ports C3 (historical summaries) and C4 (current-task
// summaries): conversations grow and are compacted again and again, and
// earlier summaries are not combined while raw groups remain.
func TestCompactAccumulates(t *testing.T) {
	t.Parallel()
	type stage struct {
		count  int   // size after the addition
		plan   []int // nil: fits, no round
		after  int
		sums   int
		adding func(i int) []*schema.Message
	}
	turn := func(i int) []*schema.Message {
		d := string(rune('0' + i))
		return []*schema.Message{user(rep("question "+d+" ", 30)), asst(rep("answer "+d+" ", 30))}
	}
	step := func(i int) []*schema.Message {
		id := "c" + string(rune('0'+i))
		return []*schema.Message{call(id), result(id, rep("result "+string(rune('0'+i))+" ", 30))}
	}
	cases := []struct {
		name    string
		start   []*schema.Message
		minKeep int
		approx  int
		target  int
		add     func(int) []*schema.Message
		stages  []stage
	}{
		{"C3 historical", []*schema.Message{sys("rules")}, 1, 10, 1100, turn, []stage{
			{635, nil, 635, 0, nil}, {1256, []int{1, 2}, 697, 1, nil}, {1318, []int{2, 3}, 759, 2, nil}, {1380, []int{3, 4}, 821, 3, nil}}},
		{"C4 current task", []*schema.Message{sys("rules"), user("current task")}, 1, 10, 650, step, []stage{
			{355, nil, 355, 0, nil}, {676, []int{2, 3}, 417, 1, nil}, {738, []int{3, 4}, 479, 2, nil}, {800, []int{4, 5}, 541, 3, nil}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, rounds := scNew(t, scFixed(t, "summary"), scConfig{minKeep: scInt(tc.minKeep), approx: scInt(tc.approx)})
			conv := tc.start
			for i, st := range tc.stages {
				conv = append(append([]*schema.Message(nil), conv...), tc.add(i)...)
				if got := count(fc1, conv...); got != st.count {
					t.Fatalf("addition %d: count %d, want %d", i, got, st.count)
				}
				*rounds = nil
				out, err := c.Compact(context.Background(), conv, tc.target, fc1)
				if err != nil {
					t.Fatal(err)
				}
				if st.plan == nil {
					if out != nil || len(*rounds) != 0 {
						t.Fatalf("addition %d: compacted a conversation that fits", i)
					}
				} else {
					want := []scRound{{TierHistoricalTurns, st.plan, st.count, st.after}}
					if tc.add != nil && tc.start[len(tc.start)-1].Role == schema.User {
						want[0].tier = TierCurrentTaskSteps
					}
					if !reflect.DeepEqual(scRounds(*rounds), want) {
						t.Fatalf("addition %d: rounds %+v, want %+v", i, scRounds(*rounds), want)
					}
					conv = out
				}
				sums := 0
				for _, m := range conv {
					if IsStrategy(m, StrategySummarization) {
						sums++
						if !reflect.DeepEqual(m, summary("summary", 2)) {
							t.Errorf("addition %d: summary %+v, want SUM(\"summary\", 2)", i, m)
						}
					}
				}
				if sums != st.sums {
					t.Fatalf("addition %d: %d summaries, want %d", i, sums, st.sums)
				}
			}
		})
	}
}

// TestCompactInHook is C12 without an agent: the hook, as the agent runs it
// before the first model call, with the agent's system prompt prepended.
func TestCompactInHook(t *testing.T) {
	t.Parallel()
	c, _, _ := scNew(t, scFixed(t, "summary"), scConfig{approx: scInt(64)})
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 1000,
		CompactAt: 0.5, CompactTo: 0.2, TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	state := &hooks.State{Messages: []*schema.Message{sys("rules"), user(rep("old question ", 30)),
		asst(rep("old answer ", 30)), user("current task")}}
	d, err := h.Decide(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	if d.Estimated != 775 || d.Target != 200 || !d.Compacted {
		t.Errorf("decision %+v, want estimate 775, target 200, compacted", d)
	}
	// 775 - (397 + 342 + 1) + 61: the old turn out, SUM("summary") in.
	if len(d.Rounds) != 1 || d.Rounds[0].Tier != TierHistoricalTurns || !reflect.DeepEqual(d.Rounds[0].Indices, []int{1, 2}) ||
		d.Rounds[0].TokensBefore != 775 || d.Rounds[0].TokensAfter != 96 {
		t.Errorf("report rounds %+v, want one historical_turns round [1 2] 775 -> 96", d.Rounds)
	}
	want := []*schema.Message{sys("rules"), summary("summary", 2), user("current task")}
	if !reflect.DeepEqual(state.Messages, want) {
		t.Errorf("messages\n%s", Render(state.Messages, RenderOptions{}))
	}
	if n := count(fc1, state.Messages...); n != 96 || state.ContextTokens != 0 {
		t.Errorf("after: %d tokens, ContextTokens %d; want 96 and 0", n, state.ContextTokens)
	}
	for _, m := range state.Messages {
		if strings.Contains(m.Content, "old question") {
			t.Errorf("old question survived: %q", m.Content)
		}
	}
}

// TestCompactCancellation: a cancelled or expired context is always an error
// wrapping ctx.Err(), whatever RaiseOnFailure says, and the input is intact.
func TestCompactCancellation(t *testing.T) {
	t.Parallel()
	expired, cancelExpired := context.WithTimeout(context.Background(), -1)
	defer cancelExpired()
	cases := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		script  func(cancel context.CancelFunc) []scStep
		want    error
		prompts int
	}{
		{"cancelled before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, func(context.CancelFunc) []scStep { return nil }, context.Canceled, 0},
		{"expired before", func() (context.Context, context.CancelFunc) { return expired, func() {} },
			func(context.CancelFunc) []scStep { return nil }, context.DeadlineExceeded, 0},
		{"cancelled during the model call", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, func(cancel context.CancelFunc) []scStep {
			return []scStep{{cancel: cancel, err: errors.New("request aborted")}}
		}, context.Canceled, 1},
		{"cancelled after a successful round", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, func(cancel context.CancelFunc) []scStep {
			return []scStep{{cancel: cancel, text: "done anyway"}}
		}, context.Canceled, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tc.ctx()
			defer cancel()
			m := scScript(t, tc.script(cancel)...)
			c, _, _ := scNew(t, m, scConfig{minKeep: scInt(0), approx: scInt(1)})
			in := fresh()
			before := cloneAll(in)
			got, err := c.Compact(ctx, in, 1, fc1)
			if !errors.Is(err, tc.want) || got != nil {
				t.Errorf("got %d messages, err %v; want nil and %v", len(got), err, tc.want)
			}
			if !reflect.DeepEqual(in, before) {
				t.Error("input changed")
			}
			if n := len(m.prompts()); n != tc.prompts {
				t.Errorf("%d model calls, want %d", n, tc.prompts)
			}
		})
	}
}

// TestRoundReport checks what OnRound receives, usage included.
func TestRoundReport(t *testing.T) {
	t.Parallel()
	reply := schema.AssistantMessage(rep("x", 100), nil)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 700, CompletionTokens: 100, TotalTokens: 800}}
	c, _, rounds := scNew(t, scScript(t, scStep{reply: reply}, scStep{text: ""}), scConfig{approx: scInt(1)})
	msgs := append(fresh(), call("c3"), result("c3", rep("third result ", 12)))
	// The target asks for a bit more than the first step (206 chars), so
	// the planner takes that step alone (approx 1); the 154-char summary
	// then misses the target and a second round is needed, which fails.
	target := count(fc1, msgs...) - 100
	got, err := c.Compact(context.Background(), msgs, target, fc1)
	if err != nil || got == nil {
		t.Fatalf("got %v, err %v", got, err)
	}
	rs := *rounds
	if len(rs) != 2 {
		t.Fatalf("%d rounds, want 2", len(rs))
	}
	first, second := rs[0], rs[1]
	if first.Tier != TierCurrentTaskSteps || !reflect.DeepEqual(first.Indices, []int{2, 3}) || first.Err != nil ||
		first.Usage == nil || first.Usage.PromptTokens != 700 || first.Usage.CompletionTokens != 100 ||
		first.TokensBefore != count(fc1, msgs...) || first.TokensAfter != count(fc1, got...) || first.Latency < 0 {
		t.Errorf("first round %+v", first)
	}
	if !errors.Is(second.Err, ErrNoUsableSummary) || second.Usage != nil || second.TokensBefore != first.TokensAfter {
		t.Errorf("second round %+v", second)
	}
}

// TestSummarizerCallIsIsolated: callback handlers of the agent's context
// must not see the summarizer's model call.
func TestSummarizerCallIsIsolated(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	starts := 0
	handler := callbacks.NewHandlerBuilder().OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
		mu.Lock()
		starts++
		mu.Unlock()
		return ctx
	}).Build()
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "agent"}, handler)
	m := &scCallbackModel{scModel: scFixed(t, "summary")}
	c, _, _ := scNew(t, m, scConfig{approx: scInt(1)})
	if _, err := c.Compact(ctx, fresh(), 1, fc1); err != nil {
		t.Fatal(err)
	}
	callbacks.OnStart(ctx, "the agent's own call")
	mu.Lock()
	defer mu.Unlock()
	if m.calls != 1 || starts != 1 {
		t.Errorf("model calls %d, handler starts %d; want 1 and 1 (only the agent's own)", m.calls, starts)
	}
}

// scCallbackModel reports its calls to the callback handlers of its context,
// as Eino's chat models do.
type scCallbackModel struct {
	*scModel
	calls int
}

func (m *scCallbackModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.calls++
	callbacks.OnStart(ctx, in)
	return m.scModel.Generate(ctx, in, opts...)
}

// scLifeModel implements the optional lifecycle interfaces.
type scLifeModel struct {
	*scModel
	warmErr, closeErr error
	warm, closed      int
}

func (m *scLifeModel) WarmUp(context.Context) error { m.warm++; return m.warmErr }
func (m *scLifeModel) Close(context.Context) error  { m.closed++; return m.closeErr }

func TestLifecycleDelegates(t *testing.T) {
	t.Parallel()
	plain, _, _ := scNew(t, scFixed(t, "x"), scConfig{})
	if plain.WarmUp(context.Background()) != nil || plain.Close(context.Background()) != nil {
		t.Error("a model without lifecycle methods must warm up and close as a no-op")
	}
	life := &scLifeModel{scModel: scFixed(t, "x")}
	c, _, _ := scNew(t, life, scConfig{})
	if c.WarmUp(context.Background()) != nil || c.Close(context.Background()) != nil || life.warm != 1 || life.closed != 1 {
		t.Errorf("warm %d closed %d, want 1 and 1", life.warm, life.closed)
	}
	failing := &scLifeModel{scModel: scFixed(t, "x"), warmErr: errScBoom, closeErr: errScBoom}
	c, _, _ = scNew(t, failing, scConfig{})
	if err := c.WarmUp(context.Background()); !errors.Is(err, errScBoom) {
		t.Errorf("WarmUp err = %v", err)
	}
	if err := c.Close(context.Background()); !errors.Is(err, errScBoom) {
		t.Errorf("Close err = %v", err)
	}
}

// TestSummarizationConfig ports C10 and the defaults of A.1.
func TestSummarizationConfig(t *testing.T) {
	t.Parallel()
	m := scFixed(t, "x")
	bad := []struct {
		name string
		cfg  *SummarizationConfig
		want []string
	}{
		{"nil config", nil, []string{"SummarizationConfig"}},
		{"no model", &SummarizationConfig{}, []string{"ChatModel"}},
		{"negative min keep", &SummarizationConfig{ChatModel: m, MinKeepSteps: scInt(-1)}, []string{"MinKeepSteps", "at least 0", "-1"}},
		{"zero approx", &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: scInt(0)}, []string{"ApproximateSummaryTokens", "positive", "0"}},
	}
	for _, tc := range bad {
		_, err := NewSummarizationCompactor(context.Background(), tc.cfg)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m})
	if err != nil {
		t.Fatal(err)
	}
	if c.minKeep != 1 || c.approx != 0 || c.planner.Prior(600, 0) != 164+256 || c.planner.Prior(100_000, 800) != 512+256 || c.planner.Prior(100_000, 4_000) != 512+1000 || c.planner.Prior(100_000, 40_000) != 512+1600 || c.instruction != DefaultSummaryInstruction || c.log == nil || c.raise {
		t.Errorf("defaults: minKeep %d approx %d raise %v", c.minKeep, c.approx, c.raise)
	}
	// The prior's text part is the output budget the round tells the
	// model, which shrinks to four fifths of a lower MaxOutputTokens.
	c, err = NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, MaxOutputTokens: 100})
	if err != nil || c.planner.Prior(600, 0) != 80+256 || c.planner.Prior(100_000, 4_000) != 80+1000 {
		t.Errorf("MaxOutputTokens 100: prior %d and %d, want %d and %d (%v)", c.planner.Prior(600, 0), c.planner.Prior(100_000, 4_000), 80+256, 80+1000, err)
	}
	c, err = NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, MinKeepSteps: scInt(0),
		ApproximateSummaryTokens: scInt(1), SummaryInstruction: "custom", RaiseOnFailure: true})
	if err != nil || c.minKeep != 0 || c.approx != 1 || c.instruction != "custom" || !c.raise {
		t.Errorf("explicit settings not kept: %+v, %v", c, err)
	}
}

// TestCompactCancelledWhileCounting: a ctx cancelled while a counter that
// ignores it runs still ends in an error, even when nothing needed doing.
func TestCompactCancelledWhileCounting(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	counter := TokenCounterFunc(func(ctx context.Context, m []*schema.Message, tools []*schema.ToolInfo) (int, error) {
		cancel()
		return fc1.Count(ctx, m, tools)
	})
	c, _, _ := scNew(t, scScript(t), scConfig{})
	if got, err := c.Compact(ctx, fresh(), 100000, counter); !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("got %v, %v; want nil and context.Canceled", got, err)
	}
}
