package shape

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// ErrBrokenPairing means a compactor returned a conversation in which a tool
// call lost its results or a result its call (the value of
// compaction.ErrBrokenToolPairing).
var ErrBrokenPairing = errors.New("compaction: tool calls and results were separated")

// pairingFault is one way a conversation breaks tool-call pairing: a call
// whose result is missing, or a result that does not answer the calls just
// before it. At is the index of the message that carries it.
type pairingFault struct {
	Result bool // a tool result without its call; otherwise a call without its result
	ID     string
	At     int
}

func (f pairingFault) String() string {
	if f.Result {
		return "result " + f.ID
	}
	return "call " + f.ID
}

// pairingFaults lists how messages break tool-call pairing as providers see
// it: a tool result that does not sit in the run of tool messages right after
// the assistant message that made its call, and a call whose result is not
// in that run. A call in the last message is in flight and not a fault.
func pairingFaults(messages []*schema.Message) []pairingFault {
	return pairingFaultsIn(messages, true)
}

// Faults is pairingFaults as text, "call ID" or "result ID" per fault in
// conversation order, for checks that name what they found.
func Faults(messages []*schema.Message) []string {
	var out []string
	for _, f := range pairingFaults(messages) {
		out = append(out, f.String())
	}
	return out
}

// pairingFaultsIn is pairingFaults where lastInFlight says whether calls in
// the last message count as in flight.
func pairingFaultsIn(messages []*schema.Message, lastInFlight bool) []pairingFault {
	var faults []pairingFault
	// open holds the calls of the assistant message whose run of tool
	// results is under way; anything but a tool result closes it.
	open := map[string]bool{}
	for i, m := range messages {
		if m == nil {
			clear(open)
			continue
		}
		switch m.Role {
		case schema.Tool:
			if m.ToolCallID != "" && !open[m.ToolCallID] {
				faults = append(faults, pairingFault{Result: true, ID: m.ToolCallID, At: i})
			}
			continue
		case schema.Assistant:
			clear(open)
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
			if len(m.ToolCalls) == 0 || (lastInFlight && i == len(messages)-1) {
				continue
			}
			answered := map[string]bool{}
			for j := i + 1; j < len(messages) && message.IsToolResult(messages[j]); j++ {
				answered[messages[j].ToolCallID] = true
			}
			for _, tc := range m.ToolCalls {
				if tc.ID != "" && !answered[tc.ID] {
					faults = append(faults, pairingFault{ID: tc.ID, At: i})
				}
			}
		default:
			clear(open)
		}
	}
	return faults
}

// NewFaults reports, as an error wrapping ErrBrokenPairing, the
// pairing faults in after that before did not already have. Faults the
// caller's conversation came with are the caller's; a compactor must not add
// any.
//
// A fault is the caller's only if it sits on the message of before that
// carried the same fault, not merely one with the same id: models that reuse
// ids (call_0 at every step) would otherwise let an old interrupted call hide
// a newly orphaned one. See pairingOrigins for how after's messages are traced
// back to before's.
//
// A call that ends after is in flight only if it was in flight in before;
// otherwise a compactor that dropped the newest results would pass.
func NewFaults(before, after []*schema.Message) error {
	had := map[pairingFault]bool{}
	for _, f := range pairingFaults(before) {
		had[f] = true
	}
	var origin []int
	var added []string
	for _, f := range pairingFaultsIn(after, sameTrailingCalls(before, after)) {
		if origin == nil {
			origin = pairingOrigins(before, after)
		}
		if o := origin[f.At]; o < 0 || !had[pairingFault{Result: f.Result, ID: f.ID, At: o}] {
			added = append(added, f.String())
		}
	}
	if len(added) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrBrokenPairing, added)
}

// pairingOrigins maps each message of after that can carry a pairing fault
// (a tool result, an assistant message with calls) to the index of the
// message of before it came from, -1 for the others and for new ones. A
// compactor keeps order and keeps the newest messages, so the walk goes from
// the end: a message is before's same pointer if that comes next, otherwise
// (a compactor that copies, as pruning does) the latest not yet used message
// of before with the same role and the same tool-call ids.
func pairingOrigins(before, after []*schema.Message) []int {
	ptr := make(map[*schema.Message]int, len(before))
	byShape := map[string][]int{}
	for i, m := range before {
		if key, ok := pairingShape(m); ok {
			ptr[m] = i
			byShape[key] = append(byShape[key], i)
		}
	}
	origin := make([]int, len(after))
	next := len(before) // origins must lie below next, keeping order
	for j := len(after) - 1; j >= 0; j-- {
		origin[j] = -1
		key, ok := pairingShape(after[j])
		if !ok {
			continue
		}
		if i, ok := ptr[after[j]]; ok && i < next {
			origin[j], next = i, i
			continue
		}
		idx := byShape[key]
		if k, _ := slices.BinarySearch(idx, next); k > 0 {
			origin[j], next = idx[k-1], idx[k-1]
		}
	}
	return origin
}

// pairingShape is what identifies a message for pairing without its pointer:
// its role and tool-call ids. ok is false for messages that cannot carry a
// pairing fault.
func pairingShape(m *schema.Message) (key string, ok bool) {
	switch {
	case m == nil:
		return "", false
	case m.Role == schema.Tool:
		return "t\x00" + m.ToolCallID, true
	case m.Role == schema.Assistant && len(m.ToolCalls) > 0:
		var b strings.Builder
		b.WriteString("a")
		for _, tc := range m.ToolCalls {
			b.WriteString("\x00")
			b.WriteString(tc.ID)
		}
		return b.String(), true
	}
	return "", false
}

// sameTrailingCalls reports whether before and after both end with an
// assistant message asking for the same tool calls, by id and in order.
func sameTrailingCalls(before, after []*schema.Message) bool {
	if len(before) == 0 || len(after) == 0 {
		return false
	}
	b, a := before[len(before)-1], after[len(after)-1]
	if b == nil || a == nil || b.Role != schema.Assistant || a.Role != schema.Assistant {
		return false
	}
	return slices.EqualFunc(b.ToolCalls, a.ToolCalls, func(x, y schema.ToolCall) bool { return x.ID == y.ID })
}
