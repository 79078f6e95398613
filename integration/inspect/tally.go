package inspect

import (
	"fmt"
	"strings"
)

// uncompactedWhy says, per kind of triggered call that was not compacted,
// what happened, in the words the page's header uses after the count.
var uncompactedWhy = map[string]string{
	KindDeferred:     "deferred (a compaction was still being prepared)",
	KindFailed:       "failed (the error is in its row)",
	KindUnprofitable: "unprofitable (computed, not applied: it would not have paid for itself)",
	KindDeclined:     "declined (nothing to compact)",
	KindBackedOff:    "backed off (not tried, after a recent failure)",
	KindHeld:         "held (the last compaction bought too little room, so the next waits for the ceiling)",
}

// Tally is the header's count of what the hook did at the calls that
// reached the trigger: the compactions applied and the tokens they saved,
// then the calls that were not compacted, by kind. Counted over every call
// recorded, rows no longer kept included.
func (p conversationPage) Tally() string {
	s := p.S
	var b strings.Builder
	switch s.Applied {
	case 0:
		b.WriteString("No compaction")
	case 1:
		b.WriteString("1 compaction")
	default:
		fmt.Fprintf(&b, "%d compactions", s.Applied)
	}
	fmt.Fprintf(&b, ", %d tokens saved.", s.Saved)
	var parts []string
	n := 0
	for _, k := range kinds {
		if c := s.Uncompacted[k]; c > 0 {
			why, ok := uncompactedWhy[k]
			if !ok {
				why = k
			}
			parts = append(parts, fmt.Sprintf("%d %s", c, why))
			n += c
		}
	}
	if n == 0 {
		return b.String()
	}
	more := ""
	if s.Applied > 0 {
		more = " more"
	}
	if n == 1 {
		fmt.Fprintf(&b, " 1%s call reached the trigger and was not compacted: ", more)
	} else {
		fmt.Fprintf(&b, " %d%s calls reached the trigger and were not compacted: ", n, more)
	}
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString(".")
	return b.String()
}
