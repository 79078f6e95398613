package inspect

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// notCompacted is how the page's header names a triggered call that was
// not compacted, from the hook's report; "" for a compaction.
func notCompacted(rep compaction.Report) string {
	switch {
	case rep.Compacted:
		return ""
	case rep.Err != nil:
		return "failed"
	case rep.Unprofitable:
		return "unprofitable"
	case rep.Deferred:
		return "deferred"
	case rep.BackedOff:
		return "backed off"
	case rep.RoomHeld:
		return "held"
	}
	return "declined"
}

var countedCompactions = regexp.MustCompile(`(\d+) compactions?\b`)

var headerMeta = regexp.MustCompile(`(?s)</h1>\s*<p class="meta">(.*?)</p>`)

// TestHeaderCountsEachKindApart files triggered calls of every outcome, as
// a wrapped hook would: the header counts the compactions applied, and
// each other outcome apart by name, over every call recorded, rows no
// longer kept included.
func TestHeaderCountsEachKindApart(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("summarizer: %s", downMessage)
	of := map[string]compaction.Report{
		KindSynchronous:  {Compacted: true, TokensBefore: 3000, TokensAfter: 1000},
		KindPrepared:     {Compacted: true, Prepared: true, TokensBefore: 3000, TokensAfter: 1200},
		KindFallback:     {Compacted: true, Err: err, Fallback: compaction.StrategySlidingWindow, TokensBefore: 3000, TokensAfter: 900},
		KindFailed:       {Err: err},
		KindUnprofitable: {Unprofitable: true},
		KindDeferred:     {Deferred: true},
		KindBackedOff:    {BackedOff: true},
		KindHeld:         {RoomHeld: true},
		KindDeclined:     {},
	}
	tests := []struct {
		name  string
		kinds []string
		max   int // Config.MaxCompactions; 0: the default
	}{
		{"every outcome", []string{KindSynchronous, KindHeld, KindHeld, KindPrepared, KindFailed, KindBackedOff, KindFallback,
			KindUnprofitable, KindDeferred, KindDeclined}, 0},
		{"held calls only", []string{KindHeld, KindHeld}, 0},
		{"one deferred call after a compaction", []string{KindSynchronous, KindDeferred}, 0},
		{"compactions only", []string{KindSynchronous, KindSynchronous, KindPrepared}, 0},
		{"rows no longer kept", []string{KindSynchronous, KindHeld, KindHeld, KindSynchronous, KindBackedOff, KindHeld}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, &Config{MaxCompactions: tc.max})
			limits := compaction.Limits{ContextWindow: 4000, CompactAt: 0.7, CompactTo: 0.4}
			applied, others := 0, map[string]int{}
			for i, k := range tc.kinds {
				rep := of[k]
				rep.Step, rep.Estimated, rep.Trigger, rep.Triggered = i, 3000, 2800, true
				rec.record("c", &limits, rep, nil, nil, nil)
				if w := notCompacted(rep); w != "" {
					others[w]++
				} else {
					applied++
				}
			}
			m := headerMeta.FindStringSubmatch(writePage(t, rec, "c"))
			if m == nil {
				t.Fatal("the page has no header line")
			}
			header := textOf(m[1])
			counted := countedCompactions.FindAllStringSubmatch(header, -1)
			switch {
			case applied == 0 && (len(counted) != 0 || !strings.Contains(header, "No compaction")):
				t.Errorf("no compaction was applied; the header says:\n%s", header)
			case applied > 0 && (len(counted) != 1 || counted[0][1] != strconv.Itoa(applied)):
				t.Errorf("the header counts compactions as %v; %d were applied of %d triggered calls:\n%s", counted, applied, len(tc.kinds), header)
			}
			for k, n := range others {
				if !strings.Contains(header, fmt.Sprintf("%d %s", n, k)) {
					t.Errorf("the header does not say %d %s:\n%s", n, k, header)
				}
			}
			if len(others) == 0 && strings.Contains(header, "not compacted") {
				t.Errorf("every triggered call was compacted; the header says:\n%s", header)
			}
		})
	}
}
