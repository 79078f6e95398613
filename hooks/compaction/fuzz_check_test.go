package compaction

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Invariant checks shared by the fuzz, fault and load tests. They are written
// from the design's rules, not from the planner's code, so they catch the
// planner getting its own landmarks wrong.

// invToolPairing returns an error when a tool result does not answer a call
// of the assistant message its run of results follows, or when a call other
// than one in the trailing assistant message lacks a result before the next
// non-tool message.
func invToolPairing(msgs []*schema.Message) error {
	var open map[string]bool // calls of the current assistant still unanswered
	openAt := -1
	for i, m := range msgs {
		if m != nil && m.Role == schema.Tool {
			if open == nil {
				return fmt.Errorf("message %d: tool result %q follows no assistant call", i, m.ToolCallID)
			}
			if _, ok := open[m.ToolCallID]; !ok {
				return fmt.Errorf("message %d: tool result %q answers no call of message %d", i, m.ToolCallID, openAt)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: calls of message %d have no results: %v", i, openAt, keysOf(open))
		}
		open, openAt = nil, -1
		if m != nil && m.Role == schema.Assistant && len(m.ToolCalls) > 0 {
			open, openAt = map[string]bool{}, i
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		}
	}
	return nil // calls still open here belong to the trailing in-flight message
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// invLandmarks are the parts of an input a summarizing compactor must keep.
type invLandmarks struct {
	system []*schema.Message // the leading unmarked system messages
	anchor *schema.Message   // the last real user message, nil when none
	steps  [][]*schema.Message
}

func invLandmarksOf(msgs []*schema.Message) invLandmarks {
	var l invLandmarks
	se := 0
	for se < len(msgs) && msgs[se] != nil && msgs[se].Role == schema.System {
		if _, marked := msgs[se].Extra[MetaKey]; marked {
			break
		}
		se++
	}
	l.system = msgs[:se]
	start := se
	for i := len(msgs) - 1; i >= se; i-- {
		m := msgs[i]
		if m == nil {
			continue
		}
		if _, marked := m.Extra[MetaKey]; m.Role == schema.User && !marked {
			l.anchor, start = m, i+1
			break
		}
	}
	for i := start; i < len(msgs); i++ {
		switch {
		case msgs[i] == nil || (i > 0 && msgs[i-1] == nil):
			continue
		case msgs[i].Role == schema.Assistant:
			l.steps = append(l.steps, []*schema.Message{msgs[i]})
		case msgs[i].Role == schema.Tool && len(l.steps) > 0 && i > 0 && (msgs[i-1].Role == schema.Tool || msgs[i-1].Role == schema.Assistant):
			l.steps[len(l.steps)-1] = append(l.steps[len(l.steps)-1], msgs[i])
		}
	}
	return l
}

// invFingerprint is a cheap deep snapshot of a conversation for proving it
// was not mutated: its JSON, with each message's address.
func invFingerprint(msgs []*schema.Message) string {
	raw, err := json.Marshal(msgs)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%p %s", msgs, raw) + fmt.Sprint([]*schema.Message(msgs))
}

// invCompacted checks a compaction result against its input: the input is
// unchanged (fingerprint was taken before, see invFingerprint), out is nil or strictly
// smaller, keeps the leading system block, the task anchor (still the last
// real user message) and the newest minKeep steps, keeps every surviving
// message in order, adds only well-formed summaries, and pairs every call.
//
// New messages must carry the marker of one of strategies (default: only
// StrategySummarization); summaries must also have the summary's shape.
func invCompacted(in []*schema.Message, fingerprint string, out []*schema.Message, before, after int, minKeep int, strategies ...string) error {
	if len(strategies) == 0 {
		strategies = []string{StrategySummarization}
	}
	if invFingerprint(in) != fingerprint {
		return fmt.Errorf("the input conversation was modified")
	}
	if out == nil {
		return nil
	}
	if after >= before {
		return fmt.Errorf("result is not smaller: %d tokens before, %d after", before, after)
	}
	l := invLandmarksOf(in)
	for i, m := range l.system {
		if i >= len(out) || out[i] != m {
			return fmt.Errorf("leading system message %d not kept in place", i)
		}
	}
	pos := map[*schema.Message]int{}
	for i, m := range in {
		pos[m] = i
	}
	last := -1
	var lastUser *schema.Message
	for i, m := range out {
		if m != nil && m.Role == schema.User && !HasMarkerKey(m) {
			lastUser = m
		}
		if p, ok := pos[m]; ok {
			if p <= last {
				return fmt.Errorf("surviving message %d (input %d) out of order", i, p)
			}
			last = p
			continue
		}
		mk, ok := MarkerOf(m)
		if !ok || !slices.Contains(strategies, mk.Strategy) {
			return fmt.Errorf("message %d is new but carries no marker of %v: %q %v", i, strategies, m.Content, m.Extra)
		}
		if mk.Strategy == StrategySummarization && (mk.SummarizedMessages < 1 || m.Role != schema.User ||
			!strings.HasPrefix(m.Content, "<conversation_summary>\n") || !strings.HasSuffix(m.Content, "\n</conversation_summary>")) {
			return fmt.Errorf("message %d is new but not a well-formed summary: %q %v", i, m.Content, m.Extra)
		}
	}
	if lastUser != l.anchor {
		return fmt.Errorf("the task anchor is gone or no longer the last real user message")
	}
	for _, step := range l.steps[max(len(l.steps)-minKeep, 0):] {
		at, ok := indexOf(out, step[0])
		if !ok || len(out) < at+len(step) || !reflect.DeepEqual(out[at:at+len(step)], step) {
			return fmt.Errorf("one of the newest %d steps was not kept whole", minKeep)
		}
	}
	return invToolPairing(out)
}

func indexOf(msgs []*schema.Message, m *schema.Message) (int, bool) {
	for i, x := range msgs {
		if x == m {
			return i, true
		}
	}
	return 0, false
}
