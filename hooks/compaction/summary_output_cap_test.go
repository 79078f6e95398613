package compaction_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/openaitest"
)

// TestSummaryOutputCapped checks, on the HTTP bodies the real eino-ext
// client sends, that every summarizer request carries as max_tokens the
// summary size the round planned (Round.MaxOutputTokens), which for a fresh
// compactor is ApproximateSummaryTokens, in both request shapes; and that a
// reply the provider cut at that cap (finish reason "length", mid-line) is
// still applied as a summary, with the identifiers it lost restored by the
// ledger.
func TestSummaryOutputCapped(t *testing.T) {
	t.Parallel()
	const planned = 300
	full := "## Work completed\n- fetched t1 from /srv/t1.txt\n- fetched t2 from /srv/t2.txt\n"
	cut := "## Work completed\n- fetched t1 from /srv/t1.txt\n- fetched t2 fr"
	cases := []struct {
		name    string
		aligned bool
		bound   int // SummarizationConfig.MaxOutputTokens
		reply   *openaitest.Reply
		shape   string
	}{
		{name: "transcript bounded below the plan", bound: 120, reply: openaitest.Text(full), shape: compaction.ShapeTranscript},
		{name: "transcript bounded above the plan", bound: 5000, reply: openaitest.Text(full), shape: compaction.ShapeTranscript},
		{name: "transcript", reply: openaitest.Text(full), shape: compaction.ShapeTranscript},
		{name: "cache-aligned", aligned: true, reply: openaitest.Text(full), shape: compaction.ShapeCacheAligned},
		{name: "transcript cut at the cap", reply: &openaitest.Reply{Content: cut, FinishReason: "length"},
			shape: compaction.ShapeTranscript},
		{name: "cache-aligned cut at the cap", aligned: true, reply: &openaitest.Reply{Content: cut, FinishReason: "length"},
			shape: compaction.ShapeCacheAligned},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) { return tc.reply, nil })
			chat, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			approx, one := planned, 1
			var mu sync.Mutex
			var rounds []compaction.Round
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
				ChatModel: chat, CacheAligned: tc.aligned, MinKeepSteps: &one, ApproximateSummaryTokens: &approx,
				MaxOutputTokens: tc.bound, Logger: slog.New(slog.DiscardHandler),
				OnRound: func(_ context.Context, r compaction.Round) {
					mu.Lock()
					defer mu.Unlock()
					rounds = append(rounds, r)
				}})
			if err != nil {
				t.Fatal(err)
			}
			msgs := caConversation(6)
			total, err := h22FC4.Count(ctx, msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic."}}
			out, err := c.Compact(compaction.WithRequestTools(ctx, tools), msgs, total/2, h22FC4)
			if err != nil || out == nil {
				t.Fatalf("Compact: %v, %d messages", err, len(out))
			}
			reqs := srv.Requests()
			if len(reqs) == 0 || len(reqs) != len(rounds) {
				t.Fatalf("%d requests for %d rounds; want one per round", len(reqs), len(rounds))
			}
			for i, r := range reqs {
				var body struct {
					MaxTokens *int `json:"max_tokens"`
				}
				if err := json.Unmarshal(r.Body, &body); err != nil {
					t.Fatal(err)
				}
				if body.MaxTokens == nil || *body.MaxTokens != rounds[i].MaxOutputTokens {
					t.Errorf("request %d: max_tokens %v, want the round's planned size %d", i, body.MaxTokens, rounds[i].MaxOutputTokens)
				}
				if got := caShape(r); got != tc.shape {
					t.Errorf("request %d: shape %q, want %q", i, got, tc.shape)
				}
			}
			want := planned
			if tc.bound > 0 && tc.bound < planned {
				want = tc.bound
			}
			if rounds[0].MaxOutputTokens != want {
				t.Errorf("first round sent max output tokens %d, want %d (ApproximateSummaryTokens %d, bound %d)",
					rounds[0].MaxOutputTokens, want, planned, tc.bound)
			}
			for i, r := range rounds {
				if tc.bound > 0 && r.MaxOutputTokens > tc.bound {
					t.Errorf("round %d sent max output tokens %d, above MaxOutputTokens %d", i, r.MaxOutputTokens, tc.bound)
				}
			}
			for i, r := range rounds {
				if r.Err != nil || r.Shape != tc.shape {
					t.Errorf("round %d: shape %q err %v; want %q, nil", i, r.Shape, r.Err, tc.shape)
				}
			}
			kept := compaction.Render(out, compaction.RenderOptions{})
			if !strings.Contains(kept, "fetched t2 fr") && !strings.Contains(kept, "fetched t2 from") {
				t.Errorf("the summarizer's reply is not in the compacted conversation:\n%s", kept)
			}
			// Every path of a replaced result survives: in the summary's
			// text, in its ledger block, or in a message kept verbatim.
			for _, p := range []string{"/srv/t1.txt", "/srv/t2.txt", "/srv/t3.txt", "/srv/t4.txt"} {
				if !strings.Contains(kept, p) {
					t.Errorf("%s is lost from the compacted conversation", p)
				}
			}
		})
	}
}

// TestMaxOutputTokensValidated: a negative bound is refused with its field
// and value.
func TestMaxOutputTokensValidated(t *testing.T) {
	t.Parallel()
	srv := openaitest.Start(t, openaitest.Script())
	chat, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = compaction.NewSummarizationCompactor(context.Background(), &compaction.SummarizationConfig{
		ChatModel: chat, MaxOutputTokens: -1})
	if err == nil || !strings.Contains(err.Error(), "SummarizationConfig.MaxOutputTokens must be at least 0, got -1") {
		t.Errorf("MaxOutputTokens -1: %v", err)
	}
}
