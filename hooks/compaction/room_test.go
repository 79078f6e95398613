package compaction

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// roomSpy is a compactor whose usual result buys little room: it
// summarizes only the oldest shallow steps. Asked for a deep compaction
// (planning.DeepOf), it keeps the newest messages that hold the floor and
// summarizes the rest, or, without deep, declines: nothing deeper allowed.
type roomSpy struct {
	shallow int
	deep    bool

	mu    sync.Mutex
	asked []planning.Deep // per call; keep 0: not asked deep
}

// roomWanted is the room, in median steps, the engine wants a compaction
// to leave below the trigger (internal/engine, room.go).
const roomWanted = 2

func (s *roomSpy) Compact(ctx context.Context, msgs []*schema.Message, _ int, counter TokenCounter) ([]*schema.Message, error) {
	d, deepAsked := planning.DeepOf(ctx)
	s.mu.Lock()
	s.asked = append(s.asked, d)
	s.mu.Unlock()
	start := 0
	for start < len(msgs) && msgs[start].Role != schema.Assistant {
		start++
	}
	from := start + 2*s.shallow // after the oldest steps
	if deepAsked {
		if !s.deep {
			return nil, nil
		}
		// The newest whole steps holding the floor.
		for from = len(msgs) - 2; from > start; from -= 2 {
			if n, _ := counter.Count(ctx, msgs[from:], nil); n >= d.Keep {
				break
			}
		}
	}
	if from <= start || from >= len(msgs) {
		return nil, nil
	}
	out := []*schema.Message{msgs[0], msgs[1], summary("older steps", from-2)}
	return append(out, msgs[from:]...), nil
}

func (s *roomSpy) calls() []planning.Deep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]planning.Deep(nil), s.asked...)
}

// roomSteps is a conversation of the system prompt, the request and n tool
// steps of about 330 tokens each by fc1, from step first on.
func roomSteps(first, n int) []*schema.Message {
	var msgs []*schema.Message
	if first == 0 {
		msgs = []*schema.Message{sys("rules"), user("current request")}
	}
	for i := first; i < first+n; i++ {
		id := fmt.Sprintf("s%d", i)
		msgs = append(msgs, call(id), result(id, rep("x", 300)))
	}
	return msgs
}

// roomHook is a hook over spy with a 10,000-token window: trigger 7,000,
// ceiling 8,500, and a CompactTo (0.2) below the verbatim floor, so the
// hook does not ask for a deep compaction from the start.
func roomHook(t *testing.T, spy Compactor) *CompactionHook {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: spy, ContextWindow: 10000, CompactTo: 0.2,
		TokenCounter: fc1, Logger: slog.New(slog.DiscardHandler), DisableFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A compaction that leaves the call within two steps of the trigger goes
// deeper at once: a deep compaction of its result, keeping the verbatim
// floor (a fifth of the window). When nothing deeper is allowed, the first
// result stands and the Report says it bought no room (issue 32 item 5).
func TestCompactionGoesDeeperToBuyRoom(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		deep      bool
		wantCalls int
		wantRoom  float64 // at least, in steps
	}{
		{"deeper allowed", true, 2, roomWanted},
		{"nothing deeper allowed", false, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spy := &roomSpy{shallow: 3, deep: tc.deep}
			h := roomHook(t, spy)
			msgs := roomSteps(0, 22)
			before := cloneAll(msgs)
			state := &hooks.State{Messages: msgs}
			r, err := h.Decide(context.Background(), state)
			if err != nil || !r.Triggered || !r.Compacted {
				t.Fatalf("triggered %v, compacted %v, err %v", r.Triggered, r.Compacted, err)
			}
			calls := spy.calls()
			if len(calls) != tc.wantCalls {
				t.Fatalf("%d compactor calls, want %d", len(calls), tc.wantCalls)
			}
			if calls[0].Keep != 0 {
				t.Fatalf("the first call asked for a deep compaction (floor %d): the test needs a shallow first result", calls[0].Keep)
			}
			if floor := h.e.VerbatimFloor(); calls[1].Keep != floor {
				t.Errorf("the second call's floor is %d tokens, want the verbatim floor %d", calls[1].Keep, floor)
			}
			growth := count(fc1, msgs[2:4]...)
			room := (7000 - float64(count(fc1, state.Messages...))) / float64(growth)
			if r.StepGrowth != growth || room-r.RoomSteps > 0.01 || r.RoomSteps-room > 0.01 {
				t.Errorf("Report: growth %d, room %.2f steps; measured %d, %.2f", r.StepGrowth, r.RoomSteps, growth, room)
			}
			if tc.deep {
				if room < tc.wantRoom || !r.Deeper || !r.Deep || r.NoRoom {
					t.Errorf("room %.2f steps (want >= %v), Deeper %v, Deep %v, NoRoom %v", room, tc.wantRoom, r.Deeper, r.Deep, r.NoRoom)
				}
				tail := state.Messages[3:]
				if held := count(fc1, tail...); held < h.e.VerbatimFloor() {
					t.Errorf("%d tokens kept verbatim, below the floor %d", held, h.e.VerbatimFloor())
				}
			} else if room >= roomWanted || r.Deeper || !r.NoRoom || r.Err != nil {
				t.Errorf("room %.2f steps, Deeper %v, NoRoom %v, Err %v; want the first result reported as buying no room", room, r.Deeper, r.NoRoom, r.Err)
			}
			if faults := shape.Faults(state.Messages); len(faults) > 0 {
				t.Errorf("pairing faults: %v", faults)
			}
			for i := range msgs {
				if !reflect.DeepEqual(msgs[i], before[i]) {
					t.Fatalf("message %d of the caller was changed", i)
				}
			}
		})
	}
}

// After a compaction that bought no room and could go no deeper, the
// hook does not compact the conversation again below the ceiling: the
// triggered calls go out uncompacted (RoomHeld) until the ceiling, where it
// compacts as usual. Another conversation is not held.
func TestHookHoldsACompactionThatBoughtNoRoom(t *testing.T) {
	t.Parallel()
	spy := &roomSpy{shallow: 3}
	h := roomHook(t, spy)
	ctx := context.Background()
	state := &hooks.State{Messages: roomSteps(0, 22), StepCount: 22}
	r, err := h.Decide(ctx, state)
	if err != nil || !r.Compacted {
		t.Fatalf("first compaction: compacted %v, err %v", r.Compacted, err)
	}
	if !r.NoRoom {
		t.Errorf("first compaction: NoRoom %v (room %.2f steps), want true", r.NoRoom, r.RoomSteps)
	}
	afterFirst := len(spy.calls())
	next := 22
	grow := func(steps int) {
		state.Messages = append(state.Messages[:len(state.Messages):len(state.Messages)], roomSteps(next, steps)...)
		next += steps
		state.StepCount = next
	}
	// Below the ceiling (8,500): held, every call.
	for range 3 {
		grow(1)
		r, err = h.Decide(ctx, state)
		if err != nil || !r.Triggered {
			t.Fatalf("call at %d: triggered %v, err %v", r.Estimated, r.Triggered, err)
		}
		if float64(r.Estimated) >= h.e.Ceiling() {
			t.Fatalf("the call at %d is at the ceiling %.0f already: the test grows too fast", r.Estimated, h.e.Ceiling())
		}
		if !r.RoomHeld || r.Compacted || len(spy.calls()) != afterFirst {
			t.Fatalf("call at %d below the ceiling: RoomHeld %v, compacted %v, %d compactor calls (want %d)",
				r.Estimated, r.RoomHeld, r.Compacted, len(spy.calls()), afterFirst)
		}
	}
	// Another conversation of the same size is compacted.
	other := &hooks.State{Messages: roomSteps(0, 23), StepCount: 23}
	other.Messages[1] = user("another request")
	if r, err := h.Decide(ctx, other); err != nil || r.RoomHeld || !r.Compacted {
		t.Fatalf("another conversation: RoomHeld %v, compacted %v, err %v", r.RoomHeld, r.Compacted, err)
	}
	calls := len(spy.calls())
	// At the ceiling: compacted as usual.
	grow(2)
	r, err = h.Decide(ctx, state)
	if err != nil || float64(r.Estimated) < h.e.Ceiling() {
		t.Fatalf("call at %d, ceiling %.0f, err %v", r.Estimated, h.e.Ceiling(), err)
	}
	if r.RoomHeld || !r.Compacted || len(spy.calls()) == calls {
		t.Errorf("call at the ceiling: RoomHeld %v, compacted %v", r.RoomHeld, r.Compacted)
	}
}

// The step growth is the median size of the agent steps, compactors'
// notes left out, and at least a hundredth of the window.
func TestStepGrowth(t *testing.T) {
	t.Parallel()
	small, big := result("a", rep("x", 100)), result("b", rep("y", 900))
	cases := []struct {
		name string
		msgs []*schema.Message
		want int
	}{
		{"no steps", []*schema.Message{sys("s"), user("u")}, 100},
		{"median of three", []*schema.Message{sys("s"), user("u"), call("a"), small, call("b"), big, call("c"), result("c", rep("z", 400))},
			count(fc1, call("c"), result("c", rep("z", 400)))},
		{"notes left out", []*schema.Message{sys("s"), user("u"), summary(rep("w", 5000), 4), note(StrategySlidingWindow, rep("v", 5000)), call("b"), big},
			count(fc1, call("b"), big)},
		{"mean of the middle two", []*schema.Message{user("u"), call("a"), small, call("b"), big},
			(count(fc1, call("a"), small) + count(fc1, call("b"), big)) / 2},
	}
	h := roomHook(t, &roomSpy{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := h.e.StepGrowth(context.Background(), tc.msgs)
			if err != nil || got != max(tc.want, 100) {
				t.Errorf("stepGrowth = %d, %v; want %d", got, err, max(tc.want, 100))
			}
		})
	}
}
