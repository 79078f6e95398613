package ledger

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/internal/marker"
)

func user(text string) *schema.Message { return schema.UserMessage(text) }

// summary is a summary message of n messages holding text, with a marker
// and no ledger fields.
func summary(text string, n int) *schema.Message {
	m := schema.UserMessage("<conversation_summary>\n" + text + "\n</conversation_summary>")
	m.Extra = map[string]any{marker.Key: map[string]any{"strategy": message.StrategySummarization, "summarized_messages": n}}
	return m
}

// defaultCounter is the default approximate counter (its zero value).
func defaultCounter() *count.Approx { return count.NewApprox(count.Settings{}) }

func countOf(fc count.Counter, messages ...*schema.Message) int {
	n, err := fc.Count(context.Background(), messages, nil)
	if err != nil {
		panic(err)
	}
	return n
}
