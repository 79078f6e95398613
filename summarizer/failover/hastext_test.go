package failover

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// hastextLegacy answers with text only in the deprecated MultiContent field,
// which the compactor accepts as a summary.
type hastextLegacy struct{}

func (hastextLegacy) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m := schema.AssistantMessage("", nil)
	m.MultiContent = []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: "legacy summary"}}
	return m, nil
}

func (h hastextLegacy) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := h.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

// TestHasTextAgreesWithTheCompactor: what counts as usable text must be what
// compaction's summary extraction accepts (strings.TrimSpace, Content, then
// the text parts). A reply of Unicode blanks only would otherwise be handed
// to the compactor, fail there with ErrNoUsableSummary and never fall over;
// a legacy MultiContent reply would fall over for nothing.
func TestHasTextAgreesWithTheCompactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		first model.BaseChatModel
		want  string
	}{
		{"unicode blanks fall over", &script{steps: []string{"ok:\u00a0\v\u2003"}}, "next"},
		{"legacy text part is text", hastextLegacy{}, ""},
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
