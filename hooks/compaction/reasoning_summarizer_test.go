package compaction_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// rsHidden is how many hidden tokens the fake reasoning model spends before
// its summary: more than any round's output cap, as a real one does.
const rsHidden = 900

// TestReasoningModelSummarizes makes a reasoning model the summarizer,
// through the real eino-ext client over HTTP, in both request shapes: with
// the defaults (max_tokens refused, then no cap) and with
// MaxCompletionTokensOption set to eino-ext's option (max_tokens refused,
// then a cap the reasoning fills, then a cap with room for it). Each is
// learned once per compactor: a second compaction sends one request a round.
func TestReasoningModelSummarizes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		aligned  bool
		option   func(int) model.Option
		cap      string   // Round.OutputCap of the first round
		retries  []string // Round.CapRetries of the first round
		requests int      // requests of the first round
	}{
		{name: "transcript, defaults", cap: compaction.OutputCapNone,
			retries: []string{compaction.CapRetryRejected}, requests: 2},
		{name: "aligned, defaults", aligned: true, cap: compaction.OutputCapNone,
			retries: []string{compaction.CapRetryRejected}, requests: 2},
		{name: "transcript, max_completion_tokens", option: openai.WithMaxCompletionTokens, cap: compaction.OutputCapMaxCompletionTokens,
			retries: []string{compaction.CapRetryRejected, compaction.CapRetryReasoning}, requests: 3},
		{name: "aligned, max_completion_tokens", aligned: true, option: openai.WithMaxCompletionTokens, cap: compaction.OutputCapMaxCompletionTokens,
			retries: []string{compaction.CapRetryRejected, compaction.CapRetryReasoning}, requests: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := openaitest.Start(t, func(*openaitest.Request) (*openaitest.Reply, error) {
				return openaitest.Text("## Work completed\n- fetched t1 to t3 from /srv"), nil
			}, openaitest.WithReasoning(rsHidden))
			chat, err := srv.ChatModel(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var rounds []compaction.Round
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
				ChatModel: chat, CacheAligned: tc.aligned, MaxCompletionTokensOption: tc.option,
				Logger: slog.New(slog.DiscardHandler), OnRound: func(_ context.Context, r compaction.Round) {
					mu.Lock()
					defer mu.Unlock()
					rounds = append(rounds, r)
				}})
			if err != nil {
				t.Fatal(err)
			}
			msgs := caConversation(6)
			tools := []*schema.ToolInfo{{Name: "fetch", Desc: "Fetch a document about a topic."}}
			total, err := h22FC4.Count(ctx, msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			for run := range 2 {
				before := len(srv.Requests())
				mu.Lock()
				first := len(rounds)
				mu.Unlock()
				out, err := c.Compact(compaction.WithRequestTools(ctx, tools), msgs, total-150, h22FC4)
				if err != nil || out == nil {
					t.Fatalf("compaction %d: %v, %d messages; a reasoning summarizer must compact", run, err, len(out))
				}
				mu.Lock()
				r := rounds[first]
				n := len(rounds) - first
				mu.Unlock()
				sent := srv.Requests()[before:]
				wantShape := compaction.ShapeTranscript
				if tc.aligned {
					wantShape = compaction.ShapeCacheAligned
				}
				if r.Err != nil || r.Shape != wantShape || r.AlignedFallback != "" {
					t.Errorf("compaction %d: round err %v shape %q fallback %q; want nil, %q, none", run, r.Err, r.Shape, r.AlignedFallback, wantShape)
				}
				if r.OutputCap != tc.cap {
					t.Errorf("compaction %d: OutputCap %q, want %q", run, r.OutputCap, tc.cap)
				}
				if run == 0 {
					if !slices.Equal(r.CapRetries, tc.retries) || r.Attempts != tc.requests {
						t.Errorf("first round: CapRetries %q, Attempts %d; want %q, %d", r.CapRetries, r.Attempts, tc.retries, tc.requests)
					}
				} else if len(r.CapRetries) != 0 || len(sent) != n {
					// Learned: no request refused or cut, one per round.
					t.Errorf("second compaction: CapRetries %q, %d requests for %d rounds; the compactor did not learn", r.CapRetries, len(sent), n)
				}
				if r.Usage == nil || r.Usage.CompletionTokensDetails.ReasoningTokens < rsHidden {
					t.Errorf("compaction %d: round usage %+v does not report the hidden reasoning", run, r.Usage)
				}
				wantRoom := tc.option != nil
				if (r.ReasoningRoom > 0) != wantRoom {
					t.Errorf("compaction %d: ReasoningRoom %d", run, r.ReasoningRoom)
				}
				for i, q := range sent {
					last := i == len(sent)-1
					if run == 1 || last {
						if q.Rejected != "" || q.MaxTokens != 0 {
							t.Errorf("compaction %d request %d: max_tokens %d, rejected %q", run, i, q.MaxTokens, q.Rejected)
						}
						if tc.option != nil && q.MaxCompletionTokens != r.MaxOutputTokens+r.ReasoningRoom {
							t.Errorf("compaction %d request %d: max_completion_tokens %d, want the round's cap %d plus its room %d",
								run, i, q.MaxCompletionTokens, r.MaxOutputTokens, r.ReasoningRoom)
						}
					}
				}
				if !strings.Contains(compaction.Render(out, compaction.RenderOptions{}), "fetched t1 to t3") {
					t.Errorf("compaction %d: the summary is not in the result", run)
				}
			}
		})
	}
}
