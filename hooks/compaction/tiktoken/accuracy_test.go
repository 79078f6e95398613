package tiktoken

import (
	"context"
	"math"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// tkError summarises how far the approximate counter is from the exact one.
type tkError struct {
	exact, approx   int     // whole conversation
	total           float64 // (approx-exact)/exact for the whole conversation
	meanAbs, maxAbs float64 // over single messages, |approx-exact|/exact
	worst           int     // index of the message with maxAbs
}

func tkMeasure(t *testing.T, exact, approx compaction.TokenCounter, msgs []*schema.Message) tkError {
	t.Helper()
	ctx := context.Background()
	var e tkError
	e.exact, _ = exact.Count(ctx, msgs, nil)
	e.approx, _ = approx.Count(ctx, msgs, nil)
	e.total = float64(e.approx-e.exact) / float64(e.exact)
	for i, m := range msgs {
		x, _ := exact.Count(ctx, []*schema.Message{m}, nil)
		a, _ := approx.Count(ctx, []*schema.Message{m}, nil)
		rel := math.Abs(float64(a-x)) / float64(x)
		e.meanAbs += rel / float64(len(msgs))
		if rel > e.maxAbs {
			e.maxAbs, e.worst = rel, i
		}
	}
	return e
}

// TestApproximateCounterError measures the default approximate counter
// (4 characters per token) against both exact encodings on the bundled
// samples, both written by hand (sample.json: a coding agent's session,
// heavy on code, logs and JSON; prose.json: a research assistant's, mostly
// English prose) and logs
// the numbers docs/counters.md reports (go test -v -run
// ApproximateCounterError ./hooks/compaction/tiktoken). The bounds are loose
// on purpose: they catch a broken counter, not a changed sample.
func TestApproximateCounterError(t *testing.T) {
	t.Parallel()
	approx := compaction.DefaultCounter()
	perChar, err := compaction.NewApproximateTokenCounter(&compaction.ApproximateConfig{CharsPerToken: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sample := range []string{"sample.json", "prose.json"} {
		msgs := tkLoad(t, "testdata/"+sample)
		for _, enc := range []Encoding{O200kBase, Cl100kBase} {
			e := tkMeasure(t, tkNew(t, &Config{Encoding: enc}), approx, msgs)
			chars, _ := perChar.Count(context.Background(), msgs, nil)
			t.Logf("%s %s: %d messages, exact %d, approximate %d, whole-conversation error %+.1f%%, per-message mean |error| %.1f%%, max %.1f%% (message %d, %s); %.2f chars/token",
				sample, enc, len(msgs), e.exact, e.approx, 100*e.total, 100*e.meanAbs, 100*e.maxAbs, e.worst, msgs[e.worst].Role,
				float64(chars)/float64(e.exact))
			if math.Abs(e.total) > 0.35 {
				t.Errorf("%s %s: the approximate counter is off by %+.1f%% on the whole sample", sample, enc, 100*e.total)
			}
		}
	}
}
