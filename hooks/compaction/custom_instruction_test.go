package compaction_test

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// ciModel records every prompt, the max tokens and the tools it was sent,
// and answers with a short summary.
type ciModel struct {
	mu        sync.Mutex
	prompts   [][]*schema.Message
	maxTokens []int
	tools     [][]*schema.ToolInfo
}

func (m *ciModel) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	o := model.GetCommonOptions(nil, opts...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompts = append(m.prompts, in)
	n := 0
	if o.MaxTokens != nil {
		n = *o.MaxTokens
	}
	m.maxTokens = append(m.maxTokens, n)
	m.tools = append(m.tools, o.Tools)
	return schema.AssistantMessage("## Work completed\n- fetched t1 to t3", nil), nil
}

func (m *ciModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("ciModel: no streaming")
}

// ciFirst compacts caConversation(6) with instruction in the given shape
// and returns the first summarizer request, the max tokens it was sent and
// the first round.
func ciFirst(t *testing.T, instruction string, aligned bool) ([]*schema.Message, int, compaction.Round) {
	t.Helper()
	ctx := context.Background()
	m := &ciModel{}
	var rounds []compaction.Round
	c, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{
		ChatModel: m, SummaryInstruction: instruction, CacheAligned: aligned, Logger: slog.New(slog.DiscardHandler),
		OnRound: func(_ context.Context, r compaction.Round) { rounds = append(rounds, r) }})
	if err != nil {
		t.Fatal(err)
	}
	msgs := caConversation(6)
	total, err := h22FC4.Count(ctx, msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Compact(ctx, msgs, total-150, h22FC4); err != nil || out == nil {
		t.Fatalf("Compact: %v, %d messages", err, len(out))
	}
	return m.prompts[0], m.maxTokens[0], rounds[0]
}

// ciLastLines is a rendered request without the tool results, which are
// long and say nothing here.
func ciLastLines(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "[tool:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var ciBudgetSentence = regexp.MustCompile(`Keep the summary under about (\d+) words\.`)

// TestCustomInstructionGetsNoBudgetSentence checks, in both request shapes,
// that a custom SummaryInstruction is sent as written, with no sentence
// appended; that one asking for the budget through
// compaction.BudgetWordsPlaceholder gets the number the default instruction's
// sentence names; and that max output tokens are sent either way.
func TestCustomInstructionGetsNoBudgetSentence(t *testing.T) {
	t.Parallel()
	const custom = "Summarize the conversation for a handover, in plain prose."
	for _, aligned := range []bool{false, true} {
		t.Run(map[bool]string{false: "transcript", true: "aligned"}[aligned], func(t *testing.T) {
			t.Parallel()
			// The default instruction: the sentence, with the budget in words.
			prompt, maxTokens, r := ciFirst(t, "", aligned)
			m := ciBudgetSentence.FindStringSubmatch(compaction.Render(prompt, compaction.RenderOptions{}))
			if m == nil || maxTokens == 0 || maxTokens != r.MaxOutputTokens {
				t.Fatalf("default instruction: sentence %q, max tokens %d (round %d)", m, maxTokens, r.MaxOutputTokens)
			}
			words := m[1]

			// A custom instruction: as written, nothing appended.
			prompt, maxTokens, r = ciFirst(t, custom, aligned)
			text := ciLastLines(compaction.Render(prompt, compaction.RenderOptions{}))
			if strings.Contains(text, "Keep the summary under") || !strings.Contains(text, custom) {
				t.Errorf("custom instruction: the request adds the budget sentence or lacks the instruction:\n%s", text)
			}
			if !aligned {
				if len(prompt) != 2 || prompt[0].Content != custom || !strings.HasSuffix(prompt[1].Content, "</conversation_to_summarize>") {
					t.Errorf("transcript request: want the instruction as the system prompt and the transcript alone as the user message; got:\n%s", text)
				}
			}
			if maxTokens == 0 || maxTokens != r.MaxOutputTokens {
				t.Errorf("custom instruction: max tokens %d sent, round %d", maxTokens, r.MaxOutputTokens)
			}

			// A custom instruction with the placeholder: the number.
			prompt, _, _ = ciFirst(t, custom+" Use at most "+compaction.BudgetWordsPlaceholder+" words.", aligned)
			text = ciLastLines(compaction.Render(prompt, compaction.RenderOptions{}))
			if want := custom + " Use at most " + words + " words."; !strings.Contains(text, want) ||
				strings.Contains(text, compaction.BudgetWordsPlaceholder) || strings.Contains(text, "Keep the summary under") {
				t.Errorf("placeholder: want %q in the request, the placeholder replaced, no sentence appended:\n%s", want, text)
			}
		})
	}
}
