package compaction

import (
	"context"
	"strings"
	"testing"
)

// The optional numbers of SummarizationConfig are *int, nil taking the
// default; the caps' int fields of the release before still work (read
// when the *int is nil) and may not contradict it.
func TestSummarizationConfigOptionalNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		cfg             SummarizationConfig
		wantIn, wantOut int
		wantErr         string
	}{
		{"nil: no caps", SummarizationConfig{}, 0, 0, ""},
		{"set", SummarizationConfig{MaxRoundInputTokens: new(48_000), MaxRoundOutputTokens: new(300)}, 48_000, 300, ""},
		{"set to 0: no cap", SummarizationConfig{MaxRoundInputTokens: new(0), MaxRoundOutputTokens: new(0)}, 0, 0, ""},
		{"deprecated ints", SummarizationConfig{MaxSummarizerInputTokens: 4_000, MaxOutputTokens: 200}, 4_000, 200, ""},
		{"both, agreeing", SummarizationConfig{MaxRoundInputTokens: new(4_000), MaxSummarizerInputTokens: 4_000}, 4_000, 0, ""},
		{"both, disagreeing", SummarizationConfig{MaxRoundOutputTokens: new(300), MaxOutputTokens: 200}, 0, 0,
			"compaction: SummarizationConfig.MaxRoundOutputTokens = 300 and the deprecated MaxOutputTokens = 200 disagree; set MaxRoundOutputTokens alone"},
		{"negative", SummarizationConfig{MaxRoundInputTokens: new(-1)}, 0, 0,
			"compaction: SummarizationConfig.MaxRoundInputTokens must be at least 0, got -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			cfg.ChatModel = scFixed(t, "summary")
			c, err := NewSummarizationCompactor(context.Background(), &cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.maxInput != tc.wantIn || c.maxOutput != tc.wantOut {
				t.Errorf("input cap %d, output cap %d; want %d, %d", c.maxInput, c.maxOutput, tc.wantIn, tc.wantOut)
			}
		})
	}
}
