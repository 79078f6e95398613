package shape

import (
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// Layout is the shape of a conversation as a compactor that drops whole
// groups (the sliding window) sees it: the regions, the historical turns and
// the agent steps of the current task.
type Layout struct {
	Regions
	Turns [][]int // historical turns, messages the caller skips left out
	Steps [][]int // agent steps of the current task, from TaskStart on
}

// LayoutOf finds the landmarks of messages (RegionsOf, so every compactor
// agrees on what the system block and the current request are), the
// historical turns before the current request and the agent steps after
// it. Messages for which skip reports true are left out of the turns (the
// window's own notes, which a new note replaces).
func LayoutOf(messages []*schema.Message, skip func(*schema.Message) bool) Layout {
	lay := Layout{Regions: RegionsOf(messages)}
	seq := Seq(len(messages))
	for _, turn := range historicalTurns(messages, lay.Regions, seq) {
		own := make([]int, 0, len(turn))
		for _, i := range turn {
			if !skip(messages[i]) {
				own = append(own, i)
			}
		}
		lay.Turns = append(lay.Turns, own)
	}
	lay.Steps = Steps(messages, lay.TaskStart(), len(messages), seq)
	return lay
}

// KeepPairsWhole makes keep respect tool-call pairing, so that removing
// messages can never leave a call without its results or a result without its
// call: a result follows its call's fate, and a result whose call is nowhere
// before it (already an orphan, which chat APIs reject) is dropped. For
// ordinary conversations, where steps hold their results, it changes nothing.
func KeepPairsWhole(messages []*schema.Message, keep []bool) {
	owner := map[string]int{}
	lastCaller := -1
	for i, m := range messages {
		if m == nil {
			continue
		}
		switch {
		case m.Role == schema.Assistant && len(m.ToolCalls) > 0:
			for _, tc := range m.ToolCalls {
				owner[tc.ID] = i
			}
			lastCaller = i
		case message.IsToolResult(m):
			o, ok := owner[m.ToolCallID]
			if !ok && m.ToolCallID == "" {
				o, ok = lastCaller, lastCaller >= 0
			}
			keep[i] = ok && keep[o]
		}
	}
}
