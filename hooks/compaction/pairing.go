package compaction

import (
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"
)

// pairingFaults lists how messages break tool-call pairing as providers see
// it: "result ID" for a tool result that does not sit in the run of tool
// messages right after the assistant message that made call ID, "call ID" for
// a call whose result is not in that run. A call in the last message is in
// flight and not a fault.
func pairingFaults(messages []*schema.Message) []string {
	return pairingFaultsIn(messages, true)
}

// pairingFaultsIn is pairingFaults where lastInFlight says whether calls in
// the last message count as in flight.
func pairingFaultsIn(messages []*schema.Message, lastInFlight bool) []string {
	var faults []string
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
				faults = append(faults, "result "+m.ToolCallID)
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
			for j := i + 1; j < len(messages) && IsToolResult(messages[j]); j++ {
				answered[messages[j].ToolCallID] = true
			}
			for _, tc := range m.ToolCalls {
				if tc.ID != "" && !answered[tc.ID] {
					faults = append(faults, "call "+tc.ID)
				}
			}
		default:
			clear(open)
		}
	}
	return faults
}

// newPairingFaults reports, as an error wrapping ErrBrokenToolPairing, the
// pairing faults in after that before did not already have. Faults the
// caller's conversation came with are the caller's; a compactor must not add
// any.
//
// A call that ends after is in flight only if it was in flight in before;
// otherwise a compactor that dropped the newest results would pass.
func newPairingFaults(before, after []*schema.Message) error {
	had := pairingFaults(before)
	var added []string
	for _, f := range pairingFaultsIn(after, sameTrailingCalls(before, after)) {
		if !slices.Contains(had, f) {
			added = append(added, f)
		}
	}
	if len(added) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrBrokenToolPairing, added)
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
