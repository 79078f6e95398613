package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// --strategy takes the name a strategy's markers carry as another spelling
// of the verb: both compact a transcript to the same conversation. Where the
// transcript gives the strategy something to replace, the messages it
// writes carry that marker.
func TestStrategyTakesMarkerNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		verb, marker string
		marks        bool
	}{
		{"summarize", compaction.StrategySummarization, true},
		{"slide", compaction.StrategySlidingWindow, true},
		{"prune", compaction.StrategyToolResultPruning, false},
	} {
		t.Run(tt.marker, func(t *testing.T) {
			t.Parallel()
			compact := func(strategy string) []byte {
				out := filepath.Join(t.TempDir(), "out.json")
				code, _, stderr := mtRun(t, mtNoEnv, "compact", "--in", "testdata/coding.eino.json", "--window", "3000",
					"--offline", "--quiet", "--strategy", strategy, "--out", out)
				if code != 0 {
					t.Fatalf("--strategy %s: exit %d: %s", strategy, code, stderr)
				}
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
			byVerb, byMarker := compact(tt.verb), compact(tt.marker)
			if !bytes.Equal(byVerb, byMarker) {
				t.Errorf("--strategy %s and --strategy %s compacted differently", tt.verb, tt.marker)
			}
			var msgs []*schema.Message
			if err := json.Unmarshal(byMarker, &msgs); err != nil {
				t.Fatal(err)
			}
			marked := 0
			for _, m := range msgs {
				if compaction.IsStrategy(m, tt.marker) {
					marked++
				}
			}
			if tt.marks && marked == 0 {
				t.Errorf("no message of the compacted conversation carries the %q marker", tt.marker)
			}
		})
	}
}
