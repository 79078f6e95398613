package main

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"
)

// pairingFault is a place where a transcript breaks the rule chat providers
// enforce: each tool result answers a call of the assistant message just
// before its run of results, and each call is answered in that run. A
// provider rejects a request that breaks it, and compaction keeps such a
// fault as it found it, so the tool reports it before compacting.
type pairingFault struct {
	at   int // index of the message in the transcript's array
	what string
}

func (f pairingFault) String() string { return fmt.Sprintf("messages[%d]: %s", f.at, f.what) }

// inputPairingFaults lists the pairing faults of msgs in the order of the
// messages that carry them. A call of the last message counts as unanswered
// too: the tool previews the state before the next model call, when every
// call must have its result.
func inputPairingFaults(msgs []*schema.Message) []pairingFault {
	type call struct {
		at   int
		name string
	}
	var faults []pairingFault
	pending := map[string]call{} // calls of the latest assistant message not yet answered
	unanswered := func() {
		for id, c := range pending {
			faults = append(faults, pairingFault{c.at, fmt.Sprintf("tool call %q (%s) has no result after it", id, c.name)})
		}
		clear(pending)
	}
	for i, m := range msgs {
		if m.Role == schema.Tool {
			switch _, ok := pending[m.ToolCallID]; {
			case m.ToolCallID == "":
				faults = append(faults, pairingFault{i, "tool result without a tool call id"})
			case !ok:
				faults = append(faults, pairingFault{i, fmt.Sprintf("tool result %q answers no call of the assistant message before it", m.ToolCallID)})
			default:
				delete(pending, m.ToolCallID)
			}
			continue
		}
		unanswered()
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = call{i, tc.Function.Name}
		}
	}
	unanswered()
	// Unanswered calls are found after the results that follow them, and a
	// map has no order: sort by place, then text, for a stable report.
	slices.SortStableFunc(faults, func(a, b pairingFault) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.what, b.what))
	})
	return faults
}
