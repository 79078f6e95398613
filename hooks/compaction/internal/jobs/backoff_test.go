package jobs

import (
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestBackoffHolds: a failure at estimate 700, step 10, in a window of 1000
// holds the next attempt until the estimate grew by Growth of the window or
// Steps calls passed; a step below the failure's is a later run.
func TestBackoffHolds(t *testing.T) {
	t.Parallel()
	const window = 1000
	grown := 700 + int(Growth*window)
	e := Backoff{Estimate: 700, Step: 10}
	tests := []struct {
		name      string
		est, step int
		wantHolds bool
	}{
		{"next call, little growth", 710, 11, true},
		{"grown by less than Growth", grown - 1, 11, true},
		{"grown by Growth", grown, 11, false},
		{"Steps calls on", 710, 10 + Steps, false},
		{"one call short of Steps", 710, 10 + Steps - 1, true},
		{"an earlier step: a later run", 710, 9, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := e.Holds(tc.est, tc.step, window); got != tc.wantHolds {
				t.Fatalf("Holds(%d, %d) = %v, want %v", tc.est, tc.step, got, tc.wantHolds)
			}
		})
	}
}

// TestBackoffsByConversation: a recorded failure holds back the conversation
// it was recorded for, copied or grown, below the ceiling only, and no other
// conversation on the same system prompt; a success or Forget ends it.
func TestBackoffsByConversation(t *testing.T) {
	t.Parallel()
	const window, ceiling = 1000, 850.0
	failed := conv("a", "one")
	grown := append(failed[:len(failed):len(failed)], schema.AssistantMessage("two", nil))
	tests := []struct {
		name  string
		msgs  []*schema.Message
		est   int
		after func(b *Backoffs)
		want  bool
	}{
		{"the conversation grown by a step", grown, 710, nil, true},
		{"the conversation copied", copied(grown), 710, nil, true},
		{"at the ceiling", grown, 850, nil, false},
		{"another conversation on the same prompt", conv("b", "one", "two"), 710, nil, false},
		{"the conversation rewritten", conv("a", "changed", "two"), 710, nil, false},
		{"after a success", grown, 710, func(b *Backoffs) { b.Record(grown, true, 0, 0) }, false},
		{"after Forget", grown, 710, func(b *Backoffs) { b.Forget(failed) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b Backoffs
			b.Record(failed, false, 700, 3)
			if tc.after != nil {
				tc.after(&b)
			}
			if got := b.Holds(tc.msgs, tc.est, 4, window, ceiling); got != tc.want {
				t.Fatalf("Holds = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestHoldsUntilCeiling: a hold holds back every call of its run below the
// ceiling, however far the conversation grew or how many calls passed.
func TestHoldsUntilCeiling(t *testing.T) {
	t.Parallel()
	const ceiling = 850.0
	var b Backoffs
	msgs := conv("a", "one")
	b.Hold(msgs, 700, 3)
	tests := []struct {
		est, step int
		want      bool
	}{
		{840, 3 + 100, true},
		{850, 4, false},
		{710, 2, false},
	}
	for _, tc := range tests {
		if got := b.HoldsUntilCeiling(msgs, tc.est, tc.step, ceiling); got != tc.want {
			t.Errorf("HoldsUntilCeiling(%d, %d) = %v, want %v", tc.est, tc.step, got, tc.want)
		}
	}
	b.Hold(nil, 700, 3)
	b.Forget(nil)
	if b.HoldsUntilCeiling(conv("b", "one"), 710, 4, ceiling) {
		t.Fatal("a hold held another conversation")
	}
}
