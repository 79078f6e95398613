package plan

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
)

// remainder counts what is left of a conversation as groups are taken away,
// one group at a time. With an additive counter (count.Additive) each
// message is measured once and every remainder costs O(1); otherwise the
// remainder is rebuilt and recounted, which gives the same numbers at O(n)
// per candidate.
type remainder struct {
	ctx      context.Context
	messages []*schema.Message
	counter  count.Counter
	removed  []bool
	k        int // messages removed so far

	additive count.Additive
	costs    []count.Cost // per message, filled on first use
	total    count.Cost
	gone     count.Cost
}

func newRemainder(ctx context.Context, messages []*schema.Message, counter count.Counter) *remainder {
	r := &remainder{ctx: ctx, messages: messages, counter: counter}
	r.additive, _ = counter.(count.Additive)
	return r
}

// init measures every message once, on first use.
func (r *remainder) init() {
	if r.removed != nil {
		return
	}
	r.removed = make([]bool, len(r.messages))
	if r.additive != nil {
		// The default counter has most costs cached from Compact's count
		// (compaction hands down the *count.Approx inside its
		// ApproximateTokenCounter).
		if a, ok := r.additive.(*count.Approx); ok {
			r.costs = a.Costs(r.messages)
		} else {
			r.costs = make([]count.Cost, len(r.messages))
			for i, m := range r.messages {
				r.costs[i] = r.additive.MessageCost(m)
			}
		}
		for _, cost := range r.costs {
			r.total = r.total.Add(cost)
		}
	}
}

// reset puts every removed message back, keeping the measurements.
func (r *remainder) reset() {
	if r.removed == nil {
		return
	}
	clear(r.removed)
	r.k, r.gone = 0, count.Cost{}
}

// restore puts group back into the remainder and returns its size.
func (r *remainder) restore(group []int) (int, error) {
	r.init()
	for _, i := range group {
		if !r.removed[i] {
			continue
		}
		r.removed[i] = false
		r.k--
		if r.additive != nil {
			r.gone = r.gone.Sub(r.costs[i])
		}
	}
	return r.without(nil)
}

// without removes group from the remainder and returns the remainder's size.
func (r *remainder) without(group []int) (int, error) {
	r.init()
	for _, i := range group {
		if r.removed[i] {
			continue
		}
		r.removed[i] = true
		r.k++
		if r.additive != nil {
			r.gone = r.gone.Add(r.costs[i])
		}
	}
	if r.additive != nil {
		return r.additive.Tokens(r.total.Sub(r.gone), len(r.messages)-r.k), nil
	}
	kept := make([]*schema.Message, 0, len(r.messages)-r.k)
	for i, m := range r.messages {
		if !r.removed[i] {
			kept = append(kept, m)
		}
	}
	n, err := r.counter.Count(r.ctx, kept, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting a candidate remainder: %w", err)
	}
	return n, nil
}

// groupTokens is the counter's size of one candidate group on its own, an
// estimate of what the group adds to the summarizer's transcript.
func (r *remainder) groupTokens(group []int) (int, error) {
	if r.additive != nil {
		r.init()
		var sum count.Cost
		for _, i := range group {
			sum = sum.Add(r.costs[i])
		}
		return r.additive.Tokens(sum, len(group)), nil
	}
	msgs := make([]*schema.Message, len(group))
	for n, i := range group {
		msgs[n] = r.messages[i]
	}
	n, err := r.counter.Count(r.ctx, msgs, nil)
	if err != nil {
		return 0, fmt.Errorf("compaction: counting a candidate group: %w", err)
	}
	return n, nil
}
