package compaction_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// TestRoundInputTokensIsTheRequestSent checks the one definition of
// Round.InputTokens in both request shapes: the counter's size of the
// request the summarizer got, every message of it (instruction included)
// and the tool schemas sent with it, which a transcript request has none of,
// whatever tools the ctx carries.
func TestRoundInputTokensIsTheRequestSent(t *testing.T) {
	t.Parallel()
	tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic, with a long description to weigh."}}
	for _, aligned := range []bool{false, true} {
		for _, withTools := range []bool{false, true} {
			name := map[bool]string{false: "transcript", true: "aligned"}[aligned] + map[bool]string{false: "", true: ", tools"}[withTools]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				m := &ciModel{}
				var rounds []compaction.Round
				c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
					ChatModel: m, CacheAligned: aligned, Logger: slog.New(slog.DiscardHandler),
					OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
				if err != nil {
					t.Fatal(err)
				}
				cctx := ctx
				if withTools {
					cctx = compaction.WithRequestTools(ctx, tools)
				}
				msgs := caConversation(6)
				total, err := h22FC4.Count(ctx, msgs, nil)
				if err != nil {
					t.Fatal(err)
				}
				if out, err := c.Compact(cctx, msgs, total/2, h22FC4); err != nil || out == nil {
					t.Fatalf("Compact: %v, %d messages", err, len(out))
				}
				if len(rounds) == 0 || len(rounds) != len(m.prompts) {
					t.Fatalf("%d rounds for %d requests; want one request a round", len(rounds), len(m.prompts))
				}
				for i, r := range rounds {
					want, err := h22FC4.Count(ctx, m.prompts[i], m.tools[i])
					if err != nil {
						t.Fatal(err)
					}
					if r.InputTokens != want {
						t.Errorf("round %d (%s, %d tools sent): InputTokens %d, want %d, the size of the request sent",
							i, r.Shape, len(m.tools[i]), r.InputTokens, want)
					}
					if tr := r.TranscriptTokens; (r.Shape == compaction.ShapeTranscript) != (tr > 0 && tr < r.InputTokens) {
						t.Errorf("round %d (%s): TranscriptTokens %d of InputTokens %d; want the transcript alone in a transcript request, 0 otherwise",
							i, r.Shape, tr, r.InputTokens)
					}
					if r.Shape == compaction.ShapeTranscript && len(m.tools[i]) != 0 {
						t.Errorf("round %d: a transcript request carried %d tools", i, len(m.tools[i]))
					}
				}
			})
		}
	}
}
