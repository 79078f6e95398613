package compaction

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestBudgetNilMessageInsidePlannedTurn: a nil message inside a historical
// turn is part of the plan; cutting the transcript to fit
// MaxSummarizerInputTokens must not dereference it.
func TestBudgetNilMessageInsidePlannedTurn(t *testing.T) {
	t.Parallel()
	m := &ftModel{script: []ftReply{ftText("good summary")}}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: new(1),
		MaxSummarizerInputTokens: 100, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{sys("rules"), user("old question"), nil, asst(rep("old answer ", 300)), user("task"), call("c1"), result("c1", "x")}
	before := cloneAll(in)
	out, err := c.Compact(context.Background(), in, 10, fc1)
	if err != nil {
		t.Fatal(err)
	}
	// The only historical turn (indices 1..3, nil included) goes into one summary.
	if len(out) != len(in)-2 || !IsStrategy(out[1], StrategySummarization) {
		t.Fatalf("got %d messages, want the turn at 1..3 replaced by one summary", len(out))
	}
	for i := range in {
		if in[i] == nil {
			if before[i] != nil {
				t.Fatalf("message %d changed", i)
			}
			continue
		}
		if in[i].Content != before[i].Content {
			t.Fatalf("message %d changed", i)
		}
	}
}
