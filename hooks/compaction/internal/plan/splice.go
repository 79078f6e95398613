package plan

import (
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/shape"
)

// Splice returns a new conversation in which the messages at indices are
// gone and summary sits where the first of them was, or, when they lie on
// both sides of the current request, where the first of them after it was:
// a summary of earlier turns and of steps taken for the request follows the
// request, which keeps its place. Everything else keeps its order. messages
// itself is not touched.
func Splice(messages []*schema.Message, indices []int, summary *schema.Message) []*schema.Message {
	from := 0
	if task := shape.RegionsOf(messages).Task; task >= 0 && len(indices) > 0 && slices.Min(indices) < task && slices.Max(indices) > task {
		from = task + 1
	}
	drop := make([]bool, len(messages))
	first, atFrom := len(messages), len(messages)
	for _, i := range indices {
		drop[i] = true
		first = min(first, i)
		if i >= from {
			atFrom = min(atFrom, i)
		}
	}
	if atFrom < len(messages) {
		first = atFrom
	}
	out := make([]*schema.Message, 0, len(messages)-len(indices)+1)
	for i, m := range messages {
		if i == first {
			out = append(out, summary)
		}
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}
