package plan

import "github.com/cloudwego/eino/schema"

// Refusals are the messages of the rounds refused in one compaction because
// their summary did not make the conversation smaller. Later rounds of the
// same compaction plan around them, so that one part that cannot shrink does
// not keep the rest of the conversation from being compacted. Messages are
// known by identity: a successful round keeps the other messages' pointers.
type Refusals map[*schema.Message]struct{}

// Add records the messages at indices.
func (r Refusals) Add(messages []*schema.Message, indices []int) {
	for _, i := range indices {
		if m := messages[i]; m != nil {
			r[m] = struct{}{}
		}
	}
}

// filter drops the groups that hold a refused message. Groups are whole
// units of the planner (pairing-closed), so dropping one parts no tool call
// from its results.
func (r Refusals) filter(messages []*schema.Message, groups [][]int) [][]int {
	if len(r) == 0 {
		return groups
	}
	out := make([][]int, 0, len(groups))
	for _, g := range groups {
		if !r.holdsAny(messages, g) {
			out = append(out, g)
		}
	}
	return out
}

func (r Refusals) holdsAny(messages []*schema.Message, group []int) bool {
	for _, i := range group {
		if _, ok := r[messages[i]]; ok && messages[i] != nil {
			return true
		}
	}
	return false
}
