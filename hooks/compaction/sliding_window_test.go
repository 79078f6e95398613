package compaction

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// swNote marks, in an expected layout, where the window's new note must be.
const swNote = -1

func swIntp(n int) *int       { return &n }
func swStrp(s string) *string { return &s }

// swDefaultNote is the default note text for n removed messages.
func swDefaultNote(n int) string {
	return strings.ReplaceAll(DefaultOmissionNote, "{num_removed}", strconv.Itoa(n))
}

func swNew(t *testing.T, cfg *SlidingWindowConfig) *SlidingWindowCompactor {
	t.Helper()
	c, err := NewSlidingWindowCompactor(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewSlidingWindowCompactor: %v", err)
	}
	return c
}

// swCall is an assistant message calling tool name with one id.
func swCall(name, id string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: "{}"}}})
}

func TestSlidingWindowReferenceCases(t *testing.T) {
	t.Parallel()
	noNote := swStrp("")

	// Case D.1 "pruned tool result inside a kept turn": the target is the
	// budget rule's own arithmetic, exactly enough for the protected
	// messages, the step and the newer turn.
	pruned := schema.ToolMessage("[cleared]", "old", schema.WithToolName("search"))
	pruned.Extra = map[string]any{MetaKey: map[string]any{"strategy": StrategyToolResultPruning, "original_tokens": 500}}
	keptTurn := []*schema.Message{
		sys("rules"), user(rep("ancient question ", 200)), asst("ancient answer"),
		user("old question"), call("old"), pruned, user("current task"), asst("current step"),
	}
	keptTurnTarget := count(fc4, keptTurn[0], keptTurn[6]) + count(fc4, keptTurn[7]) + count(fc4, keptTurn[3:6]...)
	// A system message carrying the window's marker is not one of its
	// notes: inside a turn the window keeps, it stays with the turn.
	markedSys := sys("window state: 7 messages dropped")
	markedSys.Extra = map[string]any{MetaKey: map[string]any{"strategy": StrategySlidingWindow}}
	sysInTurn := []*schema.Message{
		sys("rules"), user(rep("ancient question ", 200)), asst("ancient answer"),
		user("old question"), markedSys, asst("old answer"), user("current task"), asst("current step"),
	}
	sysInTurnTarget := count(fc4, sysInTurn[0], sysInTurn[6]) + count(fc4, sysInTurn[7]) + count(fc4, sysInTurn[3:6]...)
	bigMarkedSys := sys(rep("stale window state ", 40))
	bigMarkedSys.Extra = map[string]any{MetaKey: map[string]any{"strategy": StrategySlidingWindow}}
	// A conversation one token over its target, whose budget exactly fits
	// every group: only the orphan goes.
	orphan := []*schema.Message{sys("rules"), user("old"), result("ghost", "stray"), asst("old answer"), user("task"), asst("step")}

	tests := []struct {
		name    string
		msgs    []*schema.Message
		cfg     *SlidingWindowConfig
		target  int
		want    []int // input indices, swNote for the new note; nil: Compact returns nil
		removed int   // the note's removed_messages (and the number in its text)
	}{
		{
			name:   "old turn dropped, no steps, no note",
			msgs:   []*schema.Message{sys("rules"), user(rep("old question ", 100)), asst("old answer"), user("current task")},
			cfg:    &SlidingWindowConfig{MinKeepSteps: swIntp(0), OmissionNote: noNote},
			target: 1,
			want:   []int{0, 3},
		},
		{
			name: "FRESH defaults: oldest step replaced by a note after the task", msgs: fresh(), target: 1,
			want: []int{0, 1, swNote, 4, 5}, removed: 2,
		},
		{
			name: "newest turn kept within the budget, note before it",
			msgs: []*schema.Message{
				sys("rules"), user("old question"), asst(rep("old answer ", 100)), user("recent question"),
				asst("recent answer"), user("current task"), asst("current step"),
			},
			target: 30, want: []int{0, swNote, 3, 4, 5, 6}, removed: 2,
		},
		{
			name: "oldest steps trimmed, history gone, no note",
			msgs: []*schema.Message{
				sys("rules"), user("old question"), call("old-call"), result("old-call", "old"), asst("old final answer"),
				user("current task"), call("cc1"), result("cc1", rep("large intermediate result ", 100)),
				call("cc2"), result("cc2", "latest result"),
			},
			cfg: &SlidingWindowConfig{OmissionNote: noNote}, target: 52, want: []int{0, 5, 8, 9},
		},
		{
			name: "old note in the system position is removed with the oldest turn",
			msgs: []*schema.Message{
				sys("rules"), note(StrategySlidingWindow, swDefaultNote(7)), user(rep("old question ", 200)), asst("old answer"),
				user("recent question"), asst("recent answer"), user("current task"), asst("current step"),
			},
			target: 30, want: []int{0, swNote, 4, 5, 6, 7}, removed: 3,
		},
		{
			name: "old note inside the task region is replaced",
			msgs: []*schema.Message{
				sys("rules"), user("current task"), note(StrategySlidingWindow, swDefaultNote(2)),
				call("c1"), result("c1", "r1"), call("c2"), result("c2", "r2"),
			},
			target: 1, want: []int{0, 1, swNote, 5, 6}, removed: 3,
		},
		{
			name: "pruned result is not a note: it stays with its call", msgs: keptTurn,
			cfg: &SlidingWindowConfig{OmissionNote: noNote}, target: keptTurnTarget, want: []int{0, 3, 4, 5, 6, 7},
		},
		{
			name: "only an old note is removable",
			msgs: []*schema.Message{
				sys("rules"), note(StrategySlidingWindow, swDefaultNote(12)), user("current task"), asst("current step"),
			},
			target: 16,
		},
		{
			name: "a marked system message inside a kept turn is kept", msgs: sysInTurn,
			cfg: &SlidingWindowConfig{OmissionNote: noNote}, target: sysInTurnTarget, want: []int{0, 3, 4, 5, 6, 7},
		},
		{
			name:   "a marked system message is removable, not taken for a note",
			msgs:   []*schema.Message{sys("rules"), bigMarkedSys, user("current task"), asst("current step")},
			target: 16, want: []int{0, swNote, 2, 3}, removed: 1,
		},
		{name: "already fits", msgs: fresh(), target: 100_000},
		{name: "only system messages", msgs: []*schema.Message{sys("a"), sys("b")}, target: 1},
		{name: "system and task only", msgs: []*schema.Message{sys("rules"), user("hi")}, target: 1},
		{
			name: "parallel calls stay with all their results",
			msgs: []*schema.Message{
				sys("rules"), user("task"), call("old"), result("old", rep("old result ", 40)),
				call("a", "b", "c"), result("a", "ra"), result("b", "rb"), result("c", "rc"),
			},
			target: 1, want: []int{0, 1, swNote, 4, 5, 6, 7}, removed: 2,
		},
		{
			name:   "MinKeepSteps 0 keeps only system and task",
			msgs:   fresh(),
			cfg:    &SlidingWindowConfig{MinKeepSteps: swIntp(0), OmissionNote: noNote},
			target: 1, want: []int{0, 1},
		},
		{name: "MinKeepSteps 2 keeps both steps", msgs: fresh(), cfg: &SlidingWindowConfig{MinKeepSteps: swIntp(2), OmissionNote: noNote}, target: 1},
		{name: "MinKeepSteps 20 keeps both steps", msgs: fresh(), cfg: &SlidingWindowConfig{MinKeepSteps: swIntp(20), OmissionNote: noNote}, target: 1},
		{
			name:   "summary in the task region is dropped, note goes before the task",
			msgs:   []*schema.Message{sys("rules"), user("task"), summary(rep("summary ", 40), 3), call("c1"), result("c1", "r")},
			target: 1, want: []int{0, swNote, 1, 3, 4}, removed: 1,
		},
		{
			name: "result separated from its kept call by a system message is kept with it",
			msgs: []*schema.Message{sys("rules"), user("task"), call("c1"), sys(rep("interjection ", 20)), result("c1", "r1"), asst("done")},
			cfg:  &SlidingWindowConfig{MinKeepSteps: swIntp(2)}, target: 1,
			want: []int{0, swNote, 1, 2, 4, 5}, removed: 1,
		},
		{
			name: "orphan result in a kept turn is dropped",
			msgs: orphan, cfg: &SlidingWindowConfig{OmissionNote: noNote}, target: count(fc4, orphan...) - 1,
			want: []int{0, 1, 3, 4, 5},
		},
		{
			name: "a note larger than what it replaces is no compaction",
			msgs: []*schema.Message{sys("rules"), user("task"), asst("a"), asst("b")}, target: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := cloneAll(tt.msgs)
			got, err := swNew(t, tt.cfg).Compact(context.Background(), tt.msgs, tt.target, fc4)
			if err != nil {
				t.Fatalf("Compact: %v", err)
			}
			if !reflect.DeepEqual(tt.msgs, before) {
				t.Fatal("Compact mutated its input")
			}
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %d messages, want nil", len(got))
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d messages %q, want %d", len(got), Render(got, RenderOptions{}), len(tt.want))
			}
			for k, idx := range tt.want {
				if idx != swNote {
					if got[k] != tt.msgs[idx] {
						t.Errorf("message %d = %q, want input %d", k, RenderMessage(got[k], RenderOptions{}), idx)
					}
					continue
				}
				swCheckNote(t, got[k], swDefaultNote(tt.removed), tt.removed, len(tt.want)-1)
			}
			if err := swPairing(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// swCheckNote checks a note's role, text and marker fields.
func swCheckNote(t *testing.T, m *schema.Message, text string, removed, kept int) {
	t.Helper()
	if m.Role != schema.User || m.Content != text {
		t.Errorf("note = %s %q, want user %q", m.Role, m.Content, text)
	}
	f, ok := MarkerFields(m)
	if !ok || f["strategy"] != StrategySlidingWindow {
		t.Fatalf("note marker = %v, want strategy %s", m.Extra, StrategySlidingWindow)
	}
	if r, _ := message.Int(f["removed_messages"]); r != removed {
		t.Errorf("removed_messages = %v, want %d", f["removed_messages"], removed)
	}
	if k, _ := message.Int(f["kept_messages"]); k != kept {
		t.Errorf("kept_messages = %v, want %d", f["kept_messages"], kept)
	}
}

func TestSlidingWindowCustomNotes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ tmpl, want string }{
		{"Dropped {num_removed} messages.", "Dropped 2 messages."},
		{"Some history is missing.", "Some history is missing."},
		{"Gone: {other} x{num_removed}", "Gone: {other} x2"},
	} {
		got, err := swNew(t, &SlidingWindowConfig{OmissionNote: swStrp(tt.tmpl)}).Compact(context.Background(), fresh(), 1, fc4)
		if err != nil || len(got) != 5 {
			t.Fatalf("%q: got %d messages, err %v", tt.tmpl, len(got), err)
		}
		swCheckNote(t, got[2], tt.want, 2, 4)
	}
}

func TestSlidingWindowMinKeepSteps(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ keep, assistants int }{{0, 0}, {1, 1}, {2, 2}, {20, 2}} {
		got, err := swNew(t, &SlidingWindowConfig{MinKeepSteps: swIntp(tt.keep), OmissionNote: swStrp("")}).
			Compact(context.Background(), fresh(), 1, fc4)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			got = fresh()
		}
		n := 0
		for _, m := range got {
			if m.Role == schema.Assistant {
				n++
			}
		}
		if n != tt.assistants {
			t.Errorf("MinKeepSteps %d: %d assistant messages kept, want %d", tt.keep, n, tt.assistants)
		}
	}
}

func TestSlidingWindowConfig(t *testing.T) {
	t.Parallel()
	c := swNew(t, nil)
	if c.minKeep != 1 || c.note != DefaultOmissionNote {
		t.Errorf("defaults = %d %q", c.minKeep, c.note)
	}
	if !strings.Contains(DefaultOmissionNote, "{num_removed}") {
		t.Error("the default note must state the number removed")
	}
	_, err := NewSlidingWindowCompactor(context.Background(), &SlidingWindowConfig{MinKeepSteps: swIntp(-1)})
	if err == nil || !strings.Contains(err.Error(), "MinKeepSteps") || !strings.Contains(err.Error(), "-1") {
		t.Errorf("MinKeepSteps -1: err = %v, want one naming the field and value", err)
	}
}

func TestSlidingWindowErrors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msgs := fresh()
	if _, err := swNew(t, nil).Compact(ctx, msgs, 1, fc4); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: err = %v", err)
	}
	boom := errors.New("boom")
	bad := TokenCounterFunc(func(context.Context, []*schema.Message, []*schema.ToolInfo) (int, error) { return 0, boom })
	if _, err := swNew(t, nil).Compact(context.Background(), msgs, 1, bad); !errors.Is(err, boom) {
		t.Errorf("failing counter: err = %v", err)
	}
	if !reflect.DeepEqual(msgs, fresh()) {
		t.Error("input changed")
	}
}

// swPairing enforces what chat APIs enforce: every tool message answers a
// call of the nearest preceding assistant message, and every call is answered
// before the next message that is not a tool result.
func swPairing(messages []*schema.Message) error {
	var pending []string
	at := -1
	for i, m := range messages {
		if m.Role == schema.Tool {
			k := -1
			for j, id := range pending {
				if id == m.ToolCallID {
					k = j
				}
			}
			if k < 0 {
				return errors.New("message " + strconv.Itoa(i) + ": result " + m.ToolCallID + " answers no pending call")
			}
			pending = append(pending[:k], pending[k+1:]...)
			continue
		}
		if len(pending) > 0 {
			return errors.New("message " + strconv.Itoa(at) + ": calls " + strings.Join(pending, ",") + " left unanswered")
		}
		pending, at = nil, i
		for _, tc := range m.ToolCalls {
			pending = append(pending, tc.ID)
		}
	}
	if len(pending) > 0 {
		return errors.New("message " + strconv.Itoa(at) + ": calls " + strings.Join(pending, ",") + " left unanswered at the end")
	}
	return nil
}
