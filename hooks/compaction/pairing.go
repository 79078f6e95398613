package compaction

import (
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"
)

// pairingFaults lists how messages break tool-call pairing: "result ID" for a
// tool result with no earlier call of that id, "call ID" for a call whose
// result does not follow before the next message that is not a tool result.
// A call in the last message is in flight and not a fault.
func pairingFaults(messages []*schema.Message) []string {
	return pairingFaultsIn(messages, true)
}

// pairingFaultsIn is pairingFaults where lastInFlight says whether calls in
// the last message count as in flight.
func pairingFaultsIn(messages []*schema.Message, lastInFlight bool) []string {
	var faults []string
	called := map[string]bool{}
	for i, m := range messages {
		if m == nil {
			continue
		}
		switch m.Role {
		case schema.Tool:
			if m.ToolCallID != "" && !called[m.ToolCallID] {
				faults = append(faults, "result "+m.ToolCallID)
			}
		case schema.Assistant:
			if len(m.ToolCalls) == 0 || (lastInFlight && i == len(messages)-1) {
				for _, tc := range m.ToolCalls {
					called[tc.ID] = true
				}
				continue
			}
			answered := map[string]bool{}
			for j := i + 1; j < len(messages) && IsToolResult(messages[j]); j++ {
				answered[messages[j].ToolCallID] = true
			}
			for _, tc := range m.ToolCalls {
				called[tc.ID] = true
				if tc.ID != "" && !answered[tc.ID] {
					faults = append(faults, "call "+tc.ID)
				}
			}
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
