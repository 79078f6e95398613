package compaction

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
)

// Fault injection: a summarizer that fails in each way a chat model can, in
// the first round (nothing to keep) or the second (one good round to keep).
// Whatever happens, the caller sees its conversation untouched or compacted
// by the last good round, never something in between.

// ftReply is one scripted summarizer answer. cancel cancels the run's ctx
// (for the run of a fault that surfaces as context.DeadlineExceeded, it
// makes the deadline pass: see ftContext).
type ftReply func(ctx context.Context, cancel context.CancelFunc) (*schema.Message, error)

// ftModel answers the i-th call with script[i].
type ftModel struct {
	script []ftReply
	cancel context.CancelFunc
	mu     sync.Mutex
	calls  int
}

func (m *ftModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	i := m.calls
	m.calls++
	m.mu.Unlock()
	if i >= len(m.script) {
		return nil, errors.New("ftModel: called more often than scripted")
	}
	return m.script[i](ctx, m.cancel)
}

func (m *ftModel) callCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

func (m *ftModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("ftModel does not stream")
}

var errFtModel = errors.New("model unavailable (503)")

func ftText(s string) ftReply {
	return func(context.Context, context.CancelFunc) (*schema.Message, error) {
		return schema.AssistantMessage(s, nil), nil
	}
}

// The faults, each with the error it must surface as.
var ftFaults = []struct {
	name  string
	reply ftReply
	want  error // nil: checked by wantText
	text  string
}{
	{"error", func(context.Context, context.CancelFunc) (*schema.Message, error) { return nil, errFtModel }, errFtModel, ""},
	{"empty text", ftText(" \n\t"), ErrNoUsableSummary, ""},
	{"no message", func(context.Context, context.CancelFunc) (*schema.Message, error) { return nil, nil }, ErrNoUsableSummary, ""},
	{"only reasoning", func(context.Context, context.CancelFunc) (*schema.Message, error) {
		m := schema.AssistantMessage("", nil)
		m.ReasoningContent = "let me think"
		m.AssistantGenMultiContent = []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: "still thinking"}}}
		return m, nil
	}, ErrNoUsableSummary, ""},
	{"tool call instead of text", func(context.Context, context.CancelFunc) (*schema.Message, error) {
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "x", Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}}), nil
	}, ErrNoUsableSummary, ""},
	{"larger than its input", ftText(rep("verbose ", 400)), ErrSummaryNotSmaller, ""},
	{"panics", func(context.Context, context.CancelFunc) (*schema.Message, error) { panic("summarizer bug") }, nil, "panicked"},
	{"hangs past the deadline", func(ctx context.Context, expire context.CancelFunc) (*schema.Message, error) {
		expire() // the run's deadline passes while the model is still writing
		<-ctx.Done()
		return nil, ctx.Err()
	}, context.DeadlineExceeded, ""},
	{"answers after the run was cancelled", func(_ context.Context, cancel context.CancelFunc) (*schema.Message, error) {
		cancel() // the user gives up while the model is still writing
		return schema.AssistantMessage("late but fine", nil), nil
	}, context.Canceled, ""},
}

// ftContext returns the run's ctx for a fault that surfaces as want, and the
// cancel its reply gets. For context.DeadlineExceeded that ctx is an
// ftDeadline, whose deadline passes when the reply calls cancel: a deadline
// on the wall clock, started before the run, could pass before the run
// reaches the summarizer on a loaded machine, and the test would then
// exercise an early deadline rather than a hanging summarizer.
func ftContext(want error) (context.Context, context.CancelFunc) {
	if errors.Is(want, context.DeadlineExceeded) {
		d := &ftDeadline{Context: context.Background(), done: make(chan struct{})}
		return d, d.expire
	}
	return context.WithCancel(context.Background())
}

// ftDeadline is a context whose deadline passes when expire is called rather
// than at a time: from then on it is done with context.DeadlineExceeded, as
// a context.WithDeadline whose time has come.
type ftDeadline struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func (d *ftDeadline) expire() { d.once.Do(func() { close(d.done) }) }

// Done is closed by expire.
func (d *ftDeadline) Done() <-chan struct{} { return d.done }

// Err is context.DeadlineExceeded once expire was called, else nil.
func (d *ftDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// ftConversation needs exactly two rounds to reach target 0 with
// MinKeepSteps 1: the old turn, then the first step of the task.
func ftConversation() []*schema.Message {
	return []*schema.Message{
		sys("rules"), user("old question"), asst(rep("old answer ", 30)),
		user("task"), call("c1"), result("c1", rep("first result ", 30)), call("c2"), result("c2", "x"),
	}
}

// ftAfterRoundOne is ftConversation after a good first round, written out
// from the planning rules rather than taken from a run.
func ftAfterRoundOne(in []*schema.Message) []*schema.Message {
	return append([]*schema.Message{in[0], NewSummaryMessage("good summary", 2)}, in[3:]...)
}

func TestFaultsLeaveConversationWholeInCompactor(t *testing.T) {
	t.Parallel()
	for _, f := range ftFaults {
		for _, round := range []int{1, 2} {
			for _, raise := range []bool{false, true} {
				t.Run(ftName(f.name, round, raise), func(t *testing.T) {
					t.Parallel()
					out, err, in, logs := ftCompact(t, f.reply, f.want, round, raise, nil)
					ftCheck(t, f.want, f.text, round, raise, in, out, err, logs)
				})
			}
		}
	}
}

// TestFaultsLeaveConversationWholeInHook: the same table through the hook,
// which replaces State.Messages only with a complete result.
func TestFaultsLeaveConversationWholeInHook(t *testing.T) {
	t.Parallel()
	for _, f := range ftFaults {
		for _, round := range []int{1, 2} {
			for _, raise := range []bool{false, true} {
				t.Run(ftName(f.name, round, raise), func(t *testing.T) {
					t.Parallel()
					var st *hooks.State
					out, err, in, logs := ftCompact(t, f.reply, f.want, round, raise, &st)
					ftCheck(t, f.want, f.text, round, raise, in, out, err, logs)
					if out == nil && !slices.Equal(st.Messages, in) {
						t.Error("State.Messages changed although nothing was compacted")
					}
				})
			}
		}
	}
}

func ftName(fault string, round int, raise bool) string {
	name := fault + "/round 1"
	if round == 2 {
		name = fault + "/round 2"
	}
	if raise {
		return name + "/raise"
	}
	return name + "/log"
}

// ftCompact runs the two-round conversation with the fault in the given
// round; through a hook when st is not nil (then *st is the state used).
func ftCompact(t *testing.T, fault ftReply, want error, round int, raise bool, st **hooks.State) (out []*schema.Message, err error, in []*schema.Message, logs *bytes.Buffer) {
	t.Helper()
	ctx, cancel := ftContext(want)
	defer cancel()
	m := &ftModel{script: []ftReply{fault}, cancel: cancel}
	if round == 2 {
		m.script = []ftReply{ftText("good summary"), fault}
	}
	logs = &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	c, err := NewSummarizationCompactor(ctx, &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: new(1), RaiseOnFailure: raise, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	in = ftConversation()
	fingerprint := invFingerprint(in)
	if st == nil {
		out, err = c.Compact(ctx, in, 0, fc1)
	} else {
		h, herr := NewCompactionHook(ctx, &HookConfig{Compactor: c, ContextWindow: 100, CompactAt: 0.03, CompactTo: 0.02, TokenCounter: fc1, Logger: log,
			// These cases pin the summarizer's own outcome in a window the
			// conversation exceeds; the model-free fallback has its own test
			// (TestHookFallsBackWhenSummarizationFails).
			DisableFallback: true})
		if herr != nil {
			t.Fatal(herr)
		}
		*st = &hooks.State{Messages: in}
		err = h.Run(ctx, *st)
		if !slices.Equal((*st).Messages, in) {
			out = (*st).Messages
		}
	}
	before, after := count(fc1, in...), 0
	if out != nil {
		after = count(fc1, out...)
	}
	if ierr := invCompacted(in, fingerprint, out, before, after, 1); ierr != nil {
		t.Fatal(ierr)
	}
	return out, err, in, logs
}

// ftCheck asserts the outcome the design promises for the fault.
func ftCheck(t *testing.T, want error, text string, round int, raise bool, in, out []*schema.Message, err error, logs *bytes.Buffer) {
	t.Helper()
	isCtx := errors.Is(want, context.Canceled) || errors.Is(want, context.DeadlineExceeded)
	matches := func(err error) bool {
		if want != nil {
			return errors.Is(err, want)
		}
		return err != nil && strings.Contains(err.Error(), text)
	}
	switch {
	case isCtx || raise:
		// A dead ctx always surfaces, and wins over any partial progress.
		if !matches(err) || out != nil {
			t.Fatalf("got %d messages, error %v; want no result and an error matching %v %q", len(out), err, want, text)
		}
	case round == 1:
		if err != nil || out != nil {
			t.Fatalf("got %d messages, error %v; want the conversation untouched and no error", len(out), err)
		}
	default:
		if err != nil {
			t.Fatalf("error %v, want the first round's result", err)
		}
		if diff := ftDiff(out, ftAfterRoundOne(in)); diff != "" {
			t.Fatalf("not the first round's result: %s", diff)
		}
	}
	if !raise && !isCtx && !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("the failure was not logged:\n%s", logs.String())
	}
}

// ftDiff compares conversations by role, content and marker. A summary
// matches when it starts with the wanted text: the compactor may append
// identifiers it found in the replaced messages.
func ftDiff(got, want []*schema.Message) string {
	if len(got) != len(want) {
		return "lengths " + Render(got, RenderOptions{}) + "\n---\n" + Render(want, RenderOptions{})
	}
	for i := range got {
		gm, gok := MarkerOf(got[i])
		wm, wok := MarkerOf(want[i])
		content := got[i].Content == want[i].Content
		if wok && wm.Strategy == StrategySummarization {
			content = strings.HasPrefix(got[i].Content, strings.TrimSuffix(want[i].Content, "\n</conversation_summary>"))
		}
		if got[i].Role != want[i].Role || !content || gm != wm || gok != wok {
			return "message " + RenderMessage(got[i], RenderOptions{}) + " != " + RenderMessage(want[i], RenderOptions{})
		}
	}
	return ""
}
