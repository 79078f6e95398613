package failover

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// replyModel answers every call with a copy of its reply.
type replyModel struct{ reply schema.Message }

func (r replyModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m := r.reply
	return &m, nil
}

func (r replyModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := r.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func textPart(s string) schema.MessageOutputPart {
	return schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: s}
}

// TestHasTextAgreesWithTheCompactor: what counts as usable text must be what
// compaction's summary extraction accepts (strings.TrimSpace, Content, then
// every non-blank text part of the output parts, then of the legacy parts).
// A reply of Unicode blanks only would otherwise be handed to the compactor,
// fail there with ErrNoUsableSummary and never fall over; a reply whose text
// is in a later part, or in the legacy parts behind blank output parts, would
// fall over although the compactor accepts it.
func TestHasTextAgreesWithTheCompactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		first model.BaseChatModel
		want  string // the content of the reply Generate returns; "" = the first model's reply
	}{
		{"unicode blanks fall over", &script{steps: []string{"ok:\u00a0\v\u2003"}}, "next"},
		{"legacy text part is text", replyModel{schema.Message{Role: schema.Assistant,
			MultiContent: []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "legacy summary"}}}}, ""},
		{"text in a later output part is text", replyModel{schema.Message{Role: schema.Assistant,
			AssistantGenMultiContent: []schema.MessageOutputPart{textPart(" \n"), textPart("summary in part two")}}}, ""},
		{"legacy text behind blank output parts is text", replyModel{schema.Message{Role: schema.Assistant,
			AssistantGenMultiContent: []schema.MessageOutputPart{textPart("\t")},
			MultiContent:             []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "legacy summary"}}}}, ""},
		{"blank parts only fall over", replyModel{schema.Message{Role: schema.Assistant,
			AssistantGenMultiContent: []schema.MessageOutputPart{textPart(" "), textPart("\u3000")}}}, "next"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := New(&Config{Candidates: []Candidate{{Name: "first", Model: tt.first}, {Name: "second", Model: &script{steps: []string{"ok:next"}}}},
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Content != tt.want {
				t.Fatalf("reply content %q, want %q", reply.Content, tt.want)
			}
			if tt.want == "" && len(Attempts(reply)) != 1 {
				t.Fatalf("%d attempts, want the first candidate's reply accepted", len(Attempts(reply)))
			}
		})
	}
}
