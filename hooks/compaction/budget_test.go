package compaction

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestBudgetNilMessageInsidePlannedTurn: a nil message inside a historical
// turn is part of the plan; cutting the transcript to fit
// MaxSummarizerInputTokens must not dereference it.
func TestBudgetNilMessageInsidePlannedTurn(t *testing.T) {
	t.Parallel()
	m := &ftModel{script: []ftReply{ftText("good summary")}}
	c, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: m, ApproximateSummaryTokens: new(1),
		MaxSummarizerInputTokens: 100, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	in := []*schema.Message{sys("rules"), user("old question"), nil, asst(rep("old answer ", 300)), user("task"), call("c1"), result("c1", "x")}
	before := cloneAll(in)
	out, err := c.Compact(context.Background(), in, 10, fc1)
	if err != nil {
		t.Fatal(err)
	}
	// The only historical turn (indices 1..3, nil included) goes into one summary.
	if len(out) != len(in)-2 || !IsStrategy(out[1], StrategySummarization) {
		t.Fatalf("got %d messages, want the turn at 1..3 replaced by one summary", len(out))
	}
	for i := range in {
		if in[i] == nil {
			if before[i] != nil {
				t.Fatalf("message %d changed", i)
			}
			continue
		}
		if in[i].Content != before[i].Content {
			t.Fatalf("message %d changed", i)
		}
	}
}

// TestMaxTextTokens: a text longer than MaxTextTokens reaches the summarizer
// as its head and tail, while the ledger still reads it whole, so an
// identifier from the cut middle is kept in the summary.
func TestMaxTextTokens(t *testing.T) {
	t.Parallel()
	const middleID = "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f"
	// A 40,000-character log with the identifier in its middle, far from
	// the head and tail any cap below 9,000 tokens keeps.
	filler := rep("line of a long build log ", 800) // 20,000 characters
	huge := filler + "failed request " + middleID + "\n" + filler
	tests := []struct {
		name    string
		cap     *int
		text    string
		wantCut bool
		maxLen  int // the prompt's longest acceptable length in bytes; 0: no bound
	}{
		{"default cuts a 40,000-character result", nil, huge, true, 2048*4 + 3000},
		{"default keeps an 8,000-character result", nil, filler[:8000], false, 0},
		{"a smaller cap cuts more", scInt(100), huge, true, 100*4 + 3000},
		{"0 turns the cap off", scInt(0), huge, false, 0},
		{"a cap beyond any text cuts nothing", scInt(math.MaxInt), huge, false, 0},
		// Four code points a token: 4*(MaxInt/2+101) wraps around to 400.
		{"a cap whose code points would wrap around to 400 cuts nothing", scInt(math.MaxInt/2 + 101), huge, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := []*schema.Message{sys("rules"), user("task"), call("c1"), result("c1", tc.text), call("k1"), result("k1", "kept"), asst("done")}
			before := cloneAll(msgs)
			m := scFixed(t, "s")
			c, rounds := slNew(t, m, SummarizationConfig{MinKeepSteps: scInt(1), MaxTextTokens: tc.cap})
			out, err := c.Compact(context.Background(), msgs, 1, DefaultCounter())
			if err != nil || out == nil || len(*rounds) == 0 {
				t.Fatalf("Compact = %d messages, %v, %d rounds", len(out), err, len(*rounds))
			}
			prompt := m.prompts()[0]
			marked := strings.Contains(prompt, "characters cut to fit the summarizer's input")
			if cut := (*rounds)[0].Truncated > 0; cut != tc.wantCut || marked != tc.wantCut {
				t.Fatalf("truncated %d, marker in prompt %v; want cut %v", (*rounds)[0].Truncated, marked, tc.wantCut)
			}
			// The log's middle line, or the whole single-line text, is
			// in the prompt exactly when nothing was cut.
			shown := tc.text
			if strings.Contains(tc.text, middleID) {
				shown = middleID
			}
			if strings.Contains(prompt, shown) == tc.wantCut {
				t.Errorf("%.40q in the prompt: %v, want %v", shown, tc.wantCut, !tc.wantCut)
			}
			if tc.maxLen > 0 && len(prompt) > tc.maxLen {
				t.Errorf("prompt of %d bytes, want at most %d", len(prompt), tc.maxLen)
			}
			if strings.Contains(tc.text, middleID) {
				if got := Render(out, RenderOptions{}); !strings.Contains(got, middleID) {
					t.Errorf("%s from the text's middle is not in the compacted conversation:\n%s", middleID, got)
				}
			}
			if !equalMessages(msgs, before) {
				t.Error("input mutated")
			}
		})
	}
}

func TestMaxTextTokensValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value   int
		wantErr string
	}{
		{-1, "MaxTextTokens must be 0 (no cap) or at least 64 tokens, got -1"},
		{63, "MaxTextTokens must be 0 (no cap) or at least 64 tokens, got 63"},
		{0, ""},
		{64, ""},
	}
	for _, tc := range tests {
		_, err := NewSummarizationCompactor(context.Background(), &SummarizationConfig{ChatModel: scFixed(t, "s"), MaxTextTokens: scInt(tc.value)})
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("MaxTextTokens %d: error %v, want %q", tc.value, err, tc.wantErr)
		}
	}
}

// TestSummarizerInputCapCutsEveryRenderedText: MaxSummarizerInputTokens
// bounds what the summarizer is sent whatever field of a message carries the
// long text: tool-call arguments, the deprecated MultiContent, parts whose
// text sits under another part type, attachment metadata, tool names.
func TestSummarizerInputCapCutsEveryRenderedText(t *testing.T) {
	t.Parallel()
	const limit = 1000
	long := rep("0123456789", 20_000) // 200,000 characters
	legacy := func(role schema.RoleType, p schema.ChatMessagePart) *schema.Message {
		return &schema.Message{Role: role, MultiContent: []schema.ChatMessagePart{p}}
	}
	tests := []struct {
		name string
		step []*schema.Message // one agent step, to be summarised
	}{
		{"write_file argument", []*schema.Message{ledgerCall("c1", "write_file", `{"path":"a.txt","content":"`+long+`"}`), result("c1", "ok")}},
		{"tool name", []*schema.Message{ledgerCall("c1", "tool_"+long, `{}`), result("c1", "ok")}},
		{"MultiContent text of an assistant", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Type: schema.ChatMessagePartTypeText, Text: long}), asst("noted")}},
		{"MultiContent text of a tool result", []*schema.Message{call("c1"), {Role: schema.Tool, ToolCallID: "c1", ToolName: "read",
			MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: long}}}}},
		{"MultiContent text under an untyped part", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Text: long}), asst("noted")}},
		{"tool result part text under an untyped part", []*schema.Message{call("c1"), {Role: schema.Tool, ToolCallID: "c1", ToolName: "read",
			UserInputMultiContent: []schema.MessageInputPart{{Text: long}}}}},
		{"attachment metadata", []*schema.Message{legacy(schema.Assistant, schema.ChatMessagePart{Type: schema.ChatMessagePartTypeFileURL,
			FileURL: &schema.ChatMessageFileURL{URL: "https://example.com/f.pdf", Name: "f.pdf", Extra: map[string]any{"note": strings.Repeat("long note ", 20_000)}}}), asst("noted")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := append([]*schema.Message{sys("rules"), user("task")}, tc.step...)
			msgs = append(msgs, call("k1"), result("k1", "kept"), asst("done"))
			before := cloneAll(msgs)
			m := scFixed(t, "s")
			c, rounds := slNew(t, m, SummarizationConfig{MaxSummarizerInputTokens: limit, MinKeepSteps: scInt(1), Ledger: &LedgerConfig{Disabled: true}})
			if _, err := c.Compact(context.Background(), msgs, 1, DefaultCounter()); err != nil {
				t.Fatal(err)
			}
			if len(*rounds) == 0 {
				t.Fatal("no summarization round")
			}
			r := (*rounds)[0]
			if r.TranscriptTokens > limit || r.Truncated == 0 {
				t.Errorf("round sent a transcript of %d tokens with %d messages cut, want at most %d and a cut", r.TranscriptTokens, r.Truncated, limit)
			}
			if p := m.prompts()[0]; len(p) > 8*limit || !strings.Contains(p, "characters cut to fit the summarizer's input") {
				t.Errorf("prompt of %d bytes, cut marked: %v", len(p), strings.Contains(p, "characters cut to fit"))
			}
			if !equalMessages(msgs, before) {
				t.Error("input mutated")
			}
		})
	}
}
