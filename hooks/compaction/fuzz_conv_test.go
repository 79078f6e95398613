package compaction

import (
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// fzBuilder grows a well-formed agent conversation from fuzz bytes: every
// tool call is answered by all its results right after it, except possibly a
// trailing in-flight call. Ids are unique across the builder's life, so
// chained rounds never reuse one.
type fzBuilder struct {
	r      *fzReader
	nextID int
	msgs   []*schema.Message
}

var fzWords = []string{"alpha ", "file /srv/app/main.go ", "error: EOF ", "ok ", "résumé ", "数据 ", "🙂 ", "x"}

// text is a fuzz-sized text: a few words repeated up to a few hundred times.
func (b *fzBuilder) text() string {
	w := fzWords[b.r.intn(len(fzWords))]
	return strings.Repeat(w, 1+b.r.intn(24)*(1+b.r.intn(3)))
}

func (b *fzBuilder) id() string {
	b.nextID++
	return fmt.Sprintf("c%d", b.nextID)
}

// calls appends an assistant message asking for 1-3 parallel calls, then
// the first answered of their results.
func (b *fzBuilder) calls(answered int, withText bool) {
	n := 1 + b.r.intn(3)
	m := &schema.Message{Role: schema.Assistant}
	if withText {
		m.Content = b.text()
	}
	for range n {
		m.ToolCalls = append(m.ToolCalls, schema.ToolCall{ID: b.id(), Type: "function",
			Function: schema.FunctionCall{Name: "search", Arguments: fmt.Sprintf(`{"q":%q}`, fzWords[b.r.intn(len(fzWords))])}})
	}
	b.msgs = append(b.msgs, m)
	for _, tc := range m.ToolCalls[:min(answered, n)] {
		b.msgs = append(b.msgs, schema.ToolMessage(b.text(), tc.ID, schema.WithToolName(tc.Function.Name)))
	}
}

// system appends the leading system block (0 to 2 messages).
func (b *fzBuilder) system() {
	for range b.r.intn(3) {
		b.msgs = append(b.msgs, sys(b.text()))
	}
}

// grow appends up to maxMsgs messages of every kind a compactor meets.
func (b *fzBuilder) grow(maxMsgs int) {
	stop := len(b.msgs) + maxMsgs
	for b.r.more() && len(b.msgs) < stop {
		switch b.r.intn(10) {
		case 0, 1:
			b.msgs = append(b.msgs, user(b.text()))
		case 2:
			b.msgs = append(b.msgs, asst(b.text()))
		case 3, 4, 5:
			b.calls(3, false)
		case 6:
			b.calls(3, true)
		case 7:
			b.msgs = append(b.msgs, summary(b.text(), 1+b.r.intn(9)))
		case 8:
			switch b.r.intn(3) {
			case 0:
				b.msgs = append(b.msgs, note("sliding_window", b.text()))
			case 1:
				b.msgs = append(b.msgs, sys(b.text()))
			default:
				// A marker key that is not a map: not a summary, not a real user.
				m := user(b.text())
				m.Extra = map[string]any{MetaKey: "garbled"}
				b.msgs = append(b.msgs, m)
			}
		default:
			if b.r.intn(2) == 0 {
				// Text alone never makes a summary.
				b.msgs = append(b.msgs, user("<conversation_summary>\n"+b.text()+"\n</conversation_summary>"))
				continue
			}
			// Attachment data must never reach the summarizer.
			data := fzCanary
			b.msgs = append(b.msgs, &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
				{Type: schema.ChatMessagePartTypeText, Text: b.text()},
				{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{
					MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}},
			}})
		}
	}
	if b.r.intn(3) == 0 {
		// An in-flight call: some or none of its results have arrived.
		b.calls(b.r.intn(3), false)
	}
}

// settle answers a trailing in-flight call, as the agent would before it
// adds anything else, so the conversation stays well-formed when it grows.
func (b *fzBuilder) settle() {
	last := LastAssistantIndex(b.msgs)
	if last < 0 || len(b.msgs[last].ToolCalls) == 0 {
		return
	}
	have := map[string]bool{}
	for _, m := range b.msgs[last+1:] {
		have[m.ToolCallID] = true
	}
	for _, tc := range b.msgs[last].ToolCalls {
		if !have[tc.ID] {
			b.msgs = append(b.msgs, schema.ToolMessage(b.text(), tc.ID, schema.WithToolName(tc.Function.Name)))
		}
	}
}
