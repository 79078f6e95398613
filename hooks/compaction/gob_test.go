package compaction

import (
	"bytes"
	"context"
	"encoding/gob"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
)

// TestMarkersSurvivePlainGob runs every compactor that writes Extra and
// sends its output through plain gob, as Eino's ADK checkpoints do, with no
// registration by the caller (the package's tests register nothing either).
// Every marker must encode and read back unchanged.
func TestMarkersSurvivePlainGob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	zero := 0
	pr, err := NewToolResultPruningCompactor(ctx, &ToolResultPruningConfig{MinTokens: &zero})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := NewSlidingWindowCompactor(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := NewSummarizationCompactor(ctx, &SummarizationConfig{
		ChatModel:                &ftModel{script: []ftReply{ftText("good summary")}},
		ApproximateSummaryTokens: new(1),
		Logger:                   discardLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	conversation := func() []*schema.Message {
		return []*schema.Message{
			sys("rules"),
			user("fix /srv/app/config.yaml for build 3f2a9c1d7e4b"), call("c1"), result("c1", rep("old result ", 60)), asst(rep("old answer ", 60)),
			user("next task"), call("c2"), result("c2", rep("new result ", 60)),
		}
	}
	for _, tc := range []struct {
		name      string
		compactor Compactor
		strategy  string
		field     string // a strategy-specific marker field the output must carry
	}{
		{"summarization with ledger", sum, StrategySummarization, ledger.MarkerKey},
		{"sliding window", sw, StrategySlidingWindow, "removed_messages"},
		{"tool result pruning", pr, StrategyToolResultPruning, "original_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.compactor.Compact(ctx, conversation(), 300, fc1)
			if err != nil {
				t.Fatal(err)
			}
			marked := -1
			for i, m := range out {
				if IsStrategy(m, tc.strategy) {
					marked = i
				}
			}
			if marked < 0 {
				t.Fatalf("no %s marker in the output", tc.strategy)
			}
			want, _ := MarkerFields(out[marked])
			if _, ok := want[tc.field]; !ok {
				t.Fatalf("marker %v lacks %q", want, tc.field)
			}
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(out); err != nil {
				t.Fatalf("gob encode: %v", err)
			}
			var back []*schema.Message
			if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
				t.Fatalf("gob decode: %v", err)
			}
			got, ok := MarkerFields(back[marked])
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("marker after gob = %#v, want %#v", got, want)
			}
		})
	}
}

// gobProbe is a type only TestRegisterGobToleratesAnotherName registers.
type gobProbe struct{ N int }

// TestRegisterGobToleratesAnotherName: when a program registered a type
// under a name of its own first, the package's registration must neither
// panic nor break encoding.
func TestRegisterGobToleratesAnotherName(t *testing.T) {
	t.Parallel()
	gob.RegisterName("caller's own name for gobProbe", gobProbe{})
	registerGob(gobProbe{})
	var buf bytes.Buffer
	in := map[string]any{"probe": gobProbe{N: 7}}
	if err := gob.NewEncoder(&buf).Encode(in); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip = %#v, %v", out, err)
	}
}
