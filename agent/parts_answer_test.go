package agent

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// partsModel answers every call with the same reply and counts the calls.
// Some providers (and local servers) put the answer in output parts rather
// than Content; the OpenAI wire client never does, hence a fake.
type partsModel struct {
	reply *schema.Message
	calls atomic.Int32
}

func (m *partsModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m.calls.Add(1)
	cp := *m.reply
	return &cp, nil
}

func (m *partsModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	r, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{r}), nil
}

func (m *partsModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// TestFinalAnswerInOutputParts: with tools configured, a reply without tool
// calls whose text is only in AssistantGenMultiContent (or the deprecated
// MultiContent) is the final answer: one model call, ExitText.
func TestFinalAnswerInOutputParts(t *testing.T) {
	t.Parallel()
	text := schema.ChatMessagePartTypeText
	tests := []struct {
		name  string
		reply *schema.Message
		final bool
	}{
		{"Content", schema.AssistantMessage("the answer", nil), true},
		{"AssistantGenMultiContent", &schema.Message{Role: schema.Assistant,
			AssistantGenMultiContent: []schema.MessageOutputPart{{Type: text, Text: "the answer"}}}, true},
		{"AssistantGenMultiContent after reasoning", &schema.Message{Role: schema.Assistant,
			AssistantGenMultiContent: []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeReasoning}, {Type: text, Text: "the answer"}}}, true},
		{"MultiContent", &schema.Message{Role: schema.Assistant,
			MultiContent: []schema.ChatMessagePart{{Type: text, Text: "the answer"}}}, true},
		// Reasoning is not an answer: the agent asks again until MaxSteps.
		{"reasoning part only", &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
			{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: "thinking"}}}}, false},
	}
	for _, tt := range tests {
		for _, streamed := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				m := &partsModel{reply: tt.reply}
				a, err := New(context.Background(), &Config{Model: m, Tools: []tool.BaseTool{lookup}, MaxSteps: 4, Logger: quietLogger})
				if err != nil {
					t.Fatal(err)
				}
				in := []*schema.Message{schema.UserMessage("q")}
				var res *Result
				if streamed {
					evs, err := collect(t, a, in)
					if err != nil {
						t.Fatal(err)
					}
					res = evs[len(evs)-1].Result
				} else if res, err = a.Run(context.Background(), in); err != nil {
					t.Fatal(err)
				}
				if !tt.final {
					if res.ExitReason != ExitMaxSteps || m.calls.Load() != 4 {
						t.Errorf("streamed=%v: exit %q after %d model calls, want max_steps after 4", streamed, res.ExitReason, m.calls.Load())
					}
					return
				}
				if res.ExitReason != ExitText || res.StepCount != 1 {
					t.Errorf("streamed=%v: exit %q after %d steps, want text after 1", streamed, res.ExitReason, res.StepCount)
				}
				if n := m.calls.Load(); n != 1 {
					t.Errorf("streamed=%v: %d model calls, want 1", streamed, n)
				}
				if got := roles(res.Messages); got != "UA" {
					t.Errorf("streamed=%v: conversation roles %s, want UA", streamed, got)
				}
			})
		}
	}
}
