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
			if len(m.ToolCalls) == 0 || i == len(messages)-1 {
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
func newPairingFaults(before, after []*schema.Message) error {
	had := pairingFaults(before)
	var added []string
	for _, f := range pairingFaults(after) {
		if !slices.Contains(had, f) {
			added = append(added, f)
		}
	}
	if len(added) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrBrokenToolPairing, added)
}
