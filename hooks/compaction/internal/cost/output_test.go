package cost

import (
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// OutputCosts learns the mean reasoning per round over its memory, ignores
// rounds that report no output, follows a summarizer that changes, and is
// safe for concurrent use (run with -race).
func TestOutputCostsLearnReasoning(t *testing.T) {
	t.Parallel()
	var o OutputCosts
	if got := o.Reasoning(); got != 0 {
		t.Fatalf("prior %d, want 0", got)
	}
	reasoned := func(n int) *schema.TokenUsage {
		return &schema.TokenUsage{CompletionTokens: 300 + n, CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: n}}
	}
	o.Observe(nil)
	o.Observe(&schema.TokenUsage{PromptTokens: 100})
	if got := o.Reasoning(); got != 0 {
		t.Fatalf("after rounds without output: %d, want 0", got)
	}
	o.Observe(reasoned(1000))
	o.Observe(reasoned(0))
	if got, want := o.Reasoning(), (1000+0+1)/2; got != want {
		t.Fatalf("mean of 1,000 and 0: %d, want %d", got, want)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range outputMemory {
				o.Observe(reasoned(2000))
				_ = o.Reasoning()
			}
		})
	}
	wg.Wait()
	if got := o.Reasoning(); got != 2000 {
		t.Errorf("after a full memory of 2,000-token rounds: %d, want 2000", got)
	}
	var none *OutputCosts
	if got := none.Reasoning(); got != 0 {
		t.Errorf("nil: %d, want 0", got)
	}
}
