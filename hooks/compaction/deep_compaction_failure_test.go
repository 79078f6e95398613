package compaction

import (
	"context"
	"errors"
	"math"
	"testing"

	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
)

// A deep round that fails, writes a summary no smaller than what it
// replaces, or is cancelled leaves the caller's messages as they were and
// returns what RaiseOnFailure and the ctx say: the error, or no result.
func TestDeepCompactionFailures(t *testing.T) {
	t.Parallel()
	errDown := errors.New("summarizer down")
	cases := []struct {
		name    string
		step    func(cancel context.CancelFunc) scStep
		raise   bool
		wantErr error // nil: no error and no result
		rounds  int   // summarizer rounds reported
	}{
		{"failing summarizer", func(context.CancelFunc) scStep { return scStep{err: errDown} }, false, nil, 1},
		{"failing summarizer, RaiseOnFailure", func(context.CancelFunc) scStep { return scStep{err: errDown} }, true, errDown, 1},
		// The summary is longer than the whole conversation: no round can
		// shrink anything, the floor's steps included.
		{"summary not smaller", func(context.CancelFunc) scStep { return scStep{text: rep("long ", 4000)} }, false, nil, -1},
		{"summary not smaller, RaiseOnFailure", func(context.CancelFunc) scStep { return scStep{text: rep("long ", 4000)} }, true, ErrSummaryNotSmaller, 1},
		{"cancelled during the round", func(cancel context.CancelFunc) scStep { return scStep{text: "s", cancel: cancel} }, false, context.Canceled, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := deepConversation(2, 20, 300)
			before := cloneAll(msgs)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			step := tc.step(cancel)
			c, _, rounds := scNew(t, &scModel{t: t, fixed: &step}, scConfig{raise: tc.raise})
			out, err := c.Compact(planning.WithDeep(ctx, planning.Deep{Keep: 3000, Limit: math.MaxInt}), msgs, count(fc1, msgs...)/2, fc1)
			if out != nil {
				t.Errorf("a result of %d messages, want none", len(out))
			}
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("error %v, want one wrapping %v", err, tc.wantErr)
			}
			if tc.rounds >= 0 && len(*rounds) != tc.rounds {
				t.Errorf("%d rounds, want %d", len(*rounds), tc.rounds)
			}
			if tc.rounds < 0 && len(*rounds) == 0 {
				t.Errorf("no round was tried")
			}
			checkDeepResult(t, msgs, before, nil, 0, fc1)
		})
	}
}
