package compactfx

import (
	"context"
	"fmt"
	"testing"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/summarizer/extractive"
)

// compaction.strategy and compaction.pipeline take the name a strategy's
// markers carry as another spelling of the verb, and build the same
// compactor.
func TestStrategyTakesMarkerNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		yaml string
		want string // the compactor's type
	}{
		{"compaction:\n  strategy: summarization\n", fmt.Sprintf("%T", &compaction.SummarizationCompactor{})},
		{"compaction:\n  strategy: sliding_window\n", fmt.Sprintf("%T", &compaction.SlidingWindowCompactor{})},
		{"compaction:\n  strategy: tool_result_pruning\n", fmt.Sprintf("%T", &compaction.ToolResultPruningCompactor{})},
		{"compaction:\n  strategy: pipeline\n  pipeline: [tool_result_pruning, summarization]\n", fmt.Sprintf("%T", &compaction.Pipeline{})},
	} {
		t.Run(tt.yaml, func(t *testing.T) {
			t.Parallel()
			cfg, err := parse([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			sum, err := extractive.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := newCompactor(context.Background(), cfg.Compaction, compactorDeps{Summarizer: sum})
			if err != nil {
				t.Fatalf("newCompactor: %v", err)
			}
			if got := fmt.Sprintf("%T", c); got != tt.want {
				t.Errorf("built a %s; want a %s", got, tt.want)
			}
		})
	}
}
