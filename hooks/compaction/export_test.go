package compaction

import (
	"strings"

	"github.com/cloudwego/eino/schema"
)

// This file lets the external tests (package compaction_test, which may
// import bench and eval) compare the fast paths with the straightforward
// code they replaced, on the benchmark's and the fidelity corpus's
// conversations.

// ReferenceTranscript is Transcript as it was written before it rendered
// into one buffer: every message rendered to a string of its own, texts
// indented by indentContinuation, the lookalike expression run over each.
func ReferenceTranscript(messages []*schema.Message, indices []int) string {
	var b strings.Builder
	opts := RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment, Text: indentContinuation}
	for n, i := range indices {
		if n > 0 {
			b.WriteString("\n")
		}
		m := messages[i]
		if IsStrategy(m, StrategySummarization) {
			b.WriteString(summaryEntry)
			b.WriteString("\n")
			b.WriteString(entryLookalike.ReplaceAllString(withoutLedgerBlock(summaryBody(m)), "($1)"))
			continue
		}
		b.WriteString(entryLookalike.ReplaceAllString(RenderMessage(m, opts), "($1)"))
	}
	return neutralise(b.String())
}

// WrappedTranscript is the summarizer's user message for indices.
func WrappedTranscript(messages []*schema.Message, indices []int) string {
	w, _ := wrappedTranscript(messages, indices, nil)
	return w
}
