package compaction

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

func slNew(t *testing.T, m *scModel, cfg SummarizationConfig) (*SummarizationCompactor, *[]Round) {
	t.Helper()
	var rounds []Round
	cfg.ChatModel = m
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.OnRound = func(_ context.Context, r Round) { rounds = append(rounds, r) }
	if cfg.ApproximateSummaryTokens == nil {
		cfg.ApproximateSummaryTokens = scInt(1)
	}
	c, err := NewSummarizationCompactor(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, &rounds
}

// slTask is a current task whose oldest steps name identifiers a forgetful
// summary will not repeat.
func slTask() []*schema.Message {
	return []*schema.Message{
		sys("rules"), user("Why does deploy fail?"),
		ledgerCall("call_a1", "read_file", `{"path":"deploy/prod.yaml"}`),
		schema.ToolMessage(rep("replicas: 3\n", 30)+"image: registry.local/api@sha256:4f2a9c1e7b", "call_a1", schema.WithToolName("read_file")),
		ledgerCall("call_b2", "search", `{"query":"ImagePullBackOff"}`),
		schema.ToolMessage(rep("no match\n", 30), "call_b2", schema.WithToolName("search")),
		ledgerCall("call_c3", "read_file", `{"path":"deploy/staging.yaml"}`),
		schema.ToolMessage("replicas: 1", "call_c3", schema.WithToolName("read_file")),
	}
}

func TestSummarizationLedger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		ledger       *LedgerConfig
		wantRepaired bool
	}{
		{"on by default", nil, true},
		{"disabled", &LedgerConfig{Disabled: true}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := slTask()
			before := cloneAll(msgs)
			c, rounds := slNew(t, scFixed(t, "## Work completed\n- read a manifest; searched for an error"), SummarizationConfig{Ledger: tc.ledger})
			out, err := c.Compact(context.Background(), msgs, 1, DefaultCounter())
			if err != nil || out == nil {
				t.Fatalf("Compact = %v, %v", out, err)
			}
			if len(*rounds) != 1 {
				t.Fatalf("%d rounds", len(*rounds))
			}
			sum := out[2]
			m, _ := MarkerFields(sum)
			ids := Identifiers(*rounds)
			if strings.Contains(sum.Content, "call_a1") {
				t.Errorf("the summary lists a tool-call id:\n%s", sum.Content)
			}
			for _, want := range []string{"deploy/prod.yaml", "ImagePullBackOff"} {
				has := strings.Contains(sum.Content, want)
				if has != tc.wantRepaired {
					t.Errorf("summary contains %q = %v, want %v:\n%s", want, has, tc.wantRepaired, sum.Content)
				}
			}
			if tc.wantRepaired {
				if ids.Found == 0 || ids.Survived != 0 || ids.Appended != ids.Found || ids.Dropped != 0 {
					t.Errorf("stats %+v", ids)
				}
				if !strings.Contains(sum.Content, summarytext.LedgerHeading) {
					t.Error("no verbatim block")
				}
				if len(ledger.Remembered(m[ledger.MarkerKey])) != ids.Found {
					t.Errorf("marker remembers %v", m[ledger.MarkerKey])
				}
				// The newest step is kept verbatim, and its identifiers are not in the ledger.
				if strings.Contains(sum.Content, "deploy/staging.yaml") {
					t.Error("the ledger took identifiers from a kept step")
				}
			} else if ids.Found != 0 || m[ledger.MarkerKey] != nil {
				t.Errorf("disabled ledger reported %+v / %v", ids, m)
			}
			if !equalMessages(msgs, before) {
				t.Error("input mutated")
			}
		})
	}
}

// Identifiers sums the ledger stats of rounds (test helper).
func Identifiers(rounds []Round) IdentifierStats {
	var s IdentifierStats
	for _, r := range rounds {
		s.Found += r.Identifiers.Found
		s.Survived += r.Identifiers.Survived
		s.Appended += r.Identifiers.Appended
		s.Dropped += r.Identifiers.Dropped
	}
	return s
}

func equalMessages(a, b []*schema.Message) bool {
	return Render(a, RenderOptions{ToolCallIDs: true}) == Render(b, RenderOptions{ToolCallIDs: true}) && len(a) == len(b)
}

// TestSummarizationLedgerFallsBackWhenTooBig: when the verbatim block would
// make the summary no smaller than what it replaces, the summary goes in
// without it rather than the round failing.
func TestSummarizationLedgerFallsBackWhenTooBig(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		sys("rules"), user("task"),
		ledgerCall("call_zz9", "read_file", `{"path":"/very/long/path/to/some/deeply/nested/configuration/file.yaml"}`),
		schema.ToolMessage("ok", "call_zz9", schema.WithToolName("read_file")),
		asst("done"),
	}
	c, rounds := slNew(t, scFixed(t, "- read a config"), SummarizationConfig{MinKeepSteps: scInt(1)})
	out, err := c.Compact(context.Background(), msgs, 1, DefaultCounter())
	if err != nil || out == nil {
		t.Fatalf("Compact = %v, %v", out, err)
	}
	ids := Identifiers(*rounds)
	if ids.Appended != 0 || ids.Dropped == 0 || strings.Contains(out[2].Content, summarytext.LedgerHeading) {
		t.Errorf("want the block dropped: %+v\n%s", ids, out[2].Content)
	}
}

// TestSummarizationLedgerFoldIsRefusedWhenTooBig: a round that folds a
// summary must carry that summary's identifiers; when it cannot be smaller
// with them it is refused, and the summary stays with its block, instead of
// going in without them as a round over fresh messages would.
func TestSummarizationLedgerFoldIsRefusedWhenTooBig(t *testing.T) {
	t.Parallel()
	const kept = "/srv/releases/2026-11/billing-api-7f3a9c.tar.gz"
	old := summary("- shipped the release\n\n"+summarytext.LedgerHeading+"\n- "+kept, 6)
	old.Extra[MetaKey].(map[string]any)[ledger.MarkerKey] = []any{kept}
	msgs := []*schema.Message{sys("rules"), old, asst("ok"), user("task"), call("a"), result("a", "r")}
	c, rounds := slNew(t, scFixed(t, "- shipped the release, then said ok"), SummarizationConfig{})
	out, err := c.Compact(context.Background(), msgs, 1, DefaultCounter())
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if len(*rounds) == 0 {
		t.Fatal("no round was tried")
	}
	for _, r := range *rounds {
		if slices.Contains(r.Indices, 1) && (r.Err == nil || r.Identifiers.Dropped != 0) {
			t.Errorf("the fold round was applied (err %v) or dropped identifiers (%+v)", r.Err, r.Identifiers)
		}
	}
	final := msgs
	if out != nil {
		final = out
	}
	if !strings.Contains(Render(final, RenderOptions{}), kept) {
		t.Errorf("%s is gone from the conversation:\n%s", kept, Render(final, RenderOptions{}))
	}
}

func TestSummarizerInputBudget(t *testing.T) {
	t.Parallel()
	// Four steps of ~250 tokens each; the budget admits one step at a time.
	msgs := []*schema.Message{sys("rules"), user("task")}
	for _, id := range []string{"s1", "s2", "s3", "s4"} {
		msgs = append(msgs, call(id), result(id, rep(id+" data ", 125)))
	}
	before := cloneAll(msgs)
	tests := []struct {
		name       string
		budget     int
		wantFirst  int // messages replaced by the first round
		wantCut    bool
		wantRounds int
	}{
		{"no cap takes all eligible steps at once", 0, 6, false, 1},
		// After the first round each round folds the previous summary in
		// with the next step, so no separate folding round is needed.
		{"cap takes one step per round, folding the last summary in", 300, 2, false, 3},
		{"cap below one step cuts the transcript", 60, 2, true, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := scFixed(t, "s")
			c, rounds := slNew(t, m, SummarizationConfig{MaxSummarizerInputTokens: tc.budget, Ledger: &LedgerConfig{Disabled: true}})
			out, err := c.Compact(context.Background(), msgs, 1, DefaultCounter())
			if err != nil || out == nil {
				t.Fatalf("Compact = %v, %v", out, err)
			}
			if len(*rounds) < 1 || len((*rounds)[0].Indices) != tc.wantFirst {
				t.Fatalf("first round %+v, want %d messages", (*rounds)[0], tc.wantFirst)
			}
			if len(*rounds) != tc.wantRounds {
				t.Errorf("%d rounds, want %d", len(*rounds), tc.wantRounds)
			}
			cut := (*rounds)[0].Truncated > 0
			if cut != tc.wantCut {
				t.Errorf("truncated %d, want cut %v", (*rounds)[0].Truncated, tc.wantCut)
			}
			prompt := m.prompts()[0]
			if tc.wantCut && !strings.Contains(prompt, "characters cut to fit the summarizer's input") {
				t.Errorf("the cut is not marked:\n%s", prompt)
			}
			if tc.budget > 0 {
				for _, r := range *rounds {
					if !tc.wantCut && r.TranscriptTokens > tc.budget {
						t.Errorf("round sent a transcript of %d tokens over a cap of %d", r.TranscriptTokens, tc.budget)
					}
				}
			}
			if !equalMessages(msgs, before) {
				t.Error("input mutated")
			}
		})
	}
	if _, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: scFixed(t, "s"), MaxSummarizerInputTokens: -1}); err == nil ||
		!strings.Contains(err.Error(), "MaxSummarizerInputTokens must be at least 0, got -1") {
		t.Errorf("validation: %v", err)
	}
}
