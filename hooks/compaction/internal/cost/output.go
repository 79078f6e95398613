package cost

import (
	"math"
	"sync"

	"github.com/cloudwego/eino/schema"
)

// OutputCosts learns what a summarizer round bills as output besides its
// summary: the hidden reasoning (usage's
// CompletionTokensDetails.ReasoningTokens) a reasoning model bills as
// output, which can be several times the summary. The summary itself is
// priced at its budget (SummaryBudget), which each round is told and capped
// by; nothing the compactor sends bounds the reasoning, so it is learned:
// the mean over the newest outputMemory rounds that reported usage with any
// output. With none it is 0, the summary alone. It is a cost per round,
// whatever the round replaces, so the cost model spreads it over the calls
// until the next compaction, and a reasoning summarizer makes deep
// compactions, which buy more calls per round, the cheaper choice. One value
// serves all the runs a CompactionHook serves; the zero value is ready, and
// it is safe for concurrent use.
type OutputCosts struct {
	mu   sync.Mutex
	obs  [outputMemory]int // reasoning tokens of a round
	n    int               // observations held, at most outputMemory
	next int               // where the next observation goes
}

// outputMemory bounds what OutputCosts remembers, so that a summarizer
// whose behaviour changes (another model after a failover, another
// reasoning effort) is followed within a few compactions.
const outputMemory = 16

// Observe records the output usage u reports for one round. Nil usage, or
// usage reporting no output at all, says nothing about the summarizer and is
// ignored; a round that wrote text and no reasoning counts as 0.
func (o *OutputCosts) Observe(u *schema.TokenUsage) {
	if u == nil || u.CompletionTokens <= 0 && u.CompletionTokensDetails.ReasoningTokens <= 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs[o.next] = max(u.CompletionTokensDetails.ReasoningTokens, 0)
	o.next = (o.next + 1) % outputMemory
	o.n = min(o.n+1, outputMemory)
}

// Reasoning is the hidden reasoning a round is expected to bill as output:
// the mean over the rounds held, rounded up; 0 with none (the prior: the
// summary alone). A nil o has learned nothing.
func (o *OutputCosts) Reasoning() int {
	if o == nil {
		return 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == 0 {
		return 0
	}
	sum := 0
	for _, r := range o.obs[:o.n] {
		sum += r
	}
	return int(math.Ceil(float64(sum) / float64(o.n)))
}
