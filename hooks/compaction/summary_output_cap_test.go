package compaction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/openaitest"
)

// ocBudget is the output budget the docs state for a round replacing input
// tokens, bounded by bound (SummarizationConfig.MaxOutputTokens, 0: none):
// the tokens the model is told it may write, the words that names (three
// words for five tokens, rounded down to tens, at least ten) and the max
// output tokens sent (the budget and a quarter more, at most bound, the
// budget then shrinking with it).
func ocBudget(input, bound int) (words, maxTokens int) {
	budget := min(compaction.SummaryBudgetBase+input/compaction.SummaryBudgetShare, compaction.SummaryBudgetMax)
	maxTokens = budget + budget/compaction.BudgetHeadroomShare
	if bound > 0 && maxTokens > bound {
		maxTokens = bound
		budget = bound * compaction.BudgetHeadroomShare / (compaction.BudgetHeadroomShare + 1)
	}
	return max(budget*3/5/10*10, 10), maxTokens
}

// ocConversation is a system prompt, a task and steps fetch steps whose
// results, size "DATA " words each, name the file they come from.
func ocConversation(steps, size int) []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You fetch documents."), schema.UserMessage("fetch everything")}
	for i := 1; i <= steps; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "fetch", Arguments: fmt.Sprintf(`{"topic":"t%d"}`, i)}}}),
			schema.ToolMessage(fmt.Sprintf("doc t%d /srv/t%d.txt ", i, i)+strings.Repeat("DATA ", size), id, schema.WithToolName("fetch")))
	}
	return msgs
}

// ocBudgetSentence finds the length a request tells the summarizer, at the
// very end of its last message.
var ocBudgetSentence = regexp.MustCompile(`\n\nKeep the summary under about ([0-9]+) words\.$`)

// ocCustom is a custom instruction asking for the budget in words through
// the placeholder, and ocCustomWords finds the number it was given.
var (
	ocCustom      = "List the files fetched, in at most " + compaction.BudgetWordsPlaceholder + " words."
	ocCustomWords = regexp.MustCompile(`List the files fetched, in at most ([0-9]+) words\.`)
)

// TestSummaryOutputCapped checks, on the HTTP bodies the real eino-ext
// client sends, what a round asks of the summarizer's output, in both
// request shapes: the max_tokens of every request is the round's
// Round.MaxOutputTokens, which is the output budget of the text the model
// writes (a share of what the round replaces with a fixed part, capped, and
// a quarter of headroom), whatever the identifier ledger's cap, since its
// block is appended by code; at most SummarizationConfig.MaxOutputTokens;
// the last message of the request ends by telling the model the budget in
// words with the built-in instruction, and a custom one that asks for it
// through BudgetWordsPlaceholder gets the same number; and a reply the
// provider cut at max_tokens (finish reason "length", mid-line) is still
// applied as a summary, with the identifiers it lost restored by the ledger.
func TestSummaryOutputCapped(t *testing.T) {
	t.Parallel()
	full := "## Work completed\n- fetched t1 from /srv/t1.txt\n- fetched t2 from /srv/t2.txt\n"
	cut := "## Work completed\n- fetched t1 from /srv/t1.txt\n- fetched t2 fr"
	bigLedger := &compaction.LedgerConfig{MaxTokens: 4000}
	cases := []struct {
		name        string
		aligned     bool
		ledger      *compaction.LedgerConfig
		bound       int // SummarizationConfig.MaxOutputTokens
		instruction string
		steps, size int // ocConversation
		reply       *openaitest.Reply
	}{
		{name: "transcript", steps: 6, size: 100, reply: openaitest.Text(full)},
		{name: "cache-aligned", aligned: true, steps: 6, size: 100, reply: openaitest.Text(full)},
		{name: "transcript, ledger off", ledger: &compaction.LedgerConfig{Disabled: true}, steps: 6, size: 100,
			reply: openaitest.Text(full)},
		{name: "transcript, ledger cap 4000", ledger: bigLedger, steps: 6, size: 100, reply: openaitest.Text(full)},
		{name: "cache-aligned, ledger cap 4000", aligned: true, ledger: bigLedger, steps: 6, size: 100,
			reply: openaitest.Text(full)},
		{name: "transcript, a round past the budget's cap", steps: 12, size: 12000, reply: openaitest.Text(full)},
		{name: "cache-aligned, a round past the budget's cap", aligned: true, steps: 12, size: 12000,
			reply: openaitest.Text(full)},
		{name: "transcript bounded below the budget", bound: 120, steps: 6, size: 100, reply: openaitest.Text(full)},
		{name: "cache-aligned bounded below the budget", aligned: true, bound: 120, steps: 6, size: 100,
			reply: openaitest.Text(full)},
		{name: "transcript bounded above the budget", bound: 5000, steps: 6, size: 100, reply: openaitest.Text(full)},
		{name: "transcript, custom instruction", instruction: ocCustom, steps: 6, size: 100,
			reply: openaitest.Text(full)},
		{name: "cache-aligned, custom instruction", aligned: true, instruction: ocCustom, steps: 6,
			size: 100, reply: openaitest.Text(full)},
		{name: "transcript cut at the cap", steps: 6, size: 100,
			reply: &openaitest.Reply{Content: cut, FinishReason: "length"}},
		{name: "cache-aligned cut at the cap", aligned: true, steps: 6, size: 100,
			reply: &openaitest.Reply{Content: cut, FinishReason: "length"}},
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
			one := 1
			var mu sync.Mutex
			var rounds []compaction.Round
			c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
				ChatModel: chat, CacheAligned: tc.aligned, MinKeepSteps: &one, Ledger: tc.ledger,
				SummaryInstruction: tc.instruction, MaxOutputTokens: tc.bound, Logger: slog.New(slog.DiscardHandler),
				OnRound: func(_ context.Context, r compaction.Round) {
					mu.Lock()
					defer mu.Unlock()
					rounds = append(rounds, r)
				}})
			if err != nil {
				t.Fatal(err)
			}
			msgs := ocConversation(tc.steps, tc.size)
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
			wantShape := compaction.ShapeTranscript
			if tc.aligned {
				wantShape = compaction.ShapeCacheAligned
			}
			for i, r := range reqs {
				var body struct {
					MaxTokens *int `json:"max_tokens"`
				}
				if err := json.Unmarshal(r.Body, &body); err != nil {
					t.Fatal(err)
				}
				if body.MaxTokens == nil || *body.MaxTokens != rounds[i].MaxOutputTokens {
					t.Errorf("request %d: max_tokens %v, want the round's %d", i, body.MaxTokens, rounds[i].MaxOutputTokens)
				}
				if tc.bound > 0 && rounds[i].MaxOutputTokens > tc.bound {
					t.Errorf("round %d sent max output tokens %d, above MaxOutputTokens %d", i, rounds[i].MaxOutputTokens, tc.bound)
				}
				last := r.Messages[len(r.Messages)-1]
				m := ocBudgetSentence.FindStringSubmatch(last.Content.Text)
				if tc.instruction != "" {
					m = ocCustomWords.FindStringSubmatch(r.PromptText())
				}
				if last.Role != "user" || m == nil {
					t.Errorf("request %d: its last message (%s) does not end with the budget sentence:\n%s", i, last.Role, last.Content.Text)
					continue
				}
				if words, _ := strconv.Atoi(m[1]); words*5/3 > rounds[i].MaxOutputTokens && words > 10 {
					t.Errorf("request %d tells the model %d words, more than the %d max tokens sent allow", i, words, rounds[i].MaxOutputTokens)
				}
				if tc.instruction != "" && (!strings.Contains(r.PromptText(), "List the files fetched, in at most ") ||
					strings.Contains(r.PromptText(), "Keep the summary under")) {
					t.Errorf("request %d lacks the custom instruction or has the default's budget sentence", i)
				}
				if rounds[i].Err != nil || rounds[i].Shape != wantShape {
					t.Errorf("round %d: shape %q err %v; want %q, nil", i, rounds[i].Shape, rounds[i].Err, wantShape)
				}
			}
			// The first round's budget follows from what it replaced, as
			// the counter measures it, and from nothing else.
			replaced := make([]*schema.Message, len(rounds[0].Indices))
			for n, i := range rounds[0].Indices {
				replaced[n] = msgs[i]
			}
			in, err := h22FC4.Count(ctx, replaced, nil)
			if err != nil {
				t.Fatal(err)
			}
			words, maxTokens := ocBudget(in, tc.bound)
			if rounds[0].MaxOutputTokens != maxTokens {
				t.Errorf("first round (%d tokens replaced) sent max output tokens %d, want %d (bound %d)",
					in, rounds[0].MaxOutputTokens, maxTokens, tc.bound)
			}
			got := ocBudgetSentence.FindStringSubmatch(reqs[0].Messages[len(reqs[0].Messages)-1].Content.Text)
			if tc.instruction != "" {
				got = ocCustomWords.FindStringSubmatch(reqs[0].PromptText())
			}
			if got == nil || got[1] != strconv.Itoa(words) {
				t.Errorf("first request tells %v words, want %d", got, words)
			}
			kept := compaction.Render(out, compaction.RenderOptions{})
			if !strings.Contains(kept, "fetched t2 fr") && !strings.Contains(kept, "fetched t2 from") {
				t.Errorf("the summarizer's reply is not in the compacted conversation:\n%s", kept)
			}
			if tc.ledger != nil && tc.ledger.Disabled {
				return
			}
			// Every path of a replaced result survives: in the summary's
			// text, in its ledger block, or in a message kept verbatim.
			for i := 1; i <= tc.steps; i++ {
				if p := fmt.Sprintf("/srv/t%d.txt", i); !strings.Contains(kept, p) {
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
