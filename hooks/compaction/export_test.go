package compaction

import (
	"regexp"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/cost"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// This file lets the external tests (package compaction_test, which may
// import bench and eval) compare the fast paths with the straightforward
// code they replaced, on the benchmark's and the fidelity corpus's
// conversations.

// referenceLookalike is the transcript's expression for text posing as one
// of its headers, written out again so the reference does not share it.
var referenceLookalike = regexp.MustCompile(`(?i)\[(\s*(?:conversation_summary|current_request)\s*)\]`)

// ReferenceTranscript is Transcript as it was written before it rendered
// into one buffer: every message rendered to a string of its own, texts
// indented by indentContinuation, the lookalike expression run over each.
// It stays here, not in internal/transcript, since this package's render
// and fuzz tests compare against it too.
func ReferenceTranscript(messages []*schema.Message, indices []int) string {
	var b strings.Builder
	opts := RenderOptions{ToolCallIDs: true, Attachment: DescribeAttachment, Text: indentContinuation}
	for n, i := range indices {
		if n > 0 {
			b.WriteString("\n")
		}
		m := messages[i]
		if IsStrategy(m, StrategySummarization) {
			b.WriteString("[conversation_summary]")
			b.WriteString(indentContinuation("\n" + referenceLookalike.ReplaceAllString(transcript.SummaryBody(m), "($1)")))
			continue
		}
		b.WriteString(referenceLookalike.ReplaceAllString(RenderMessage(m, opts), "($1)"))
	}
	return transcript.Neutralise(b.String())
}

// indentContinuation is the transcript's indent as a string, for
// RenderOptions.Text: the lines after the first of s that start like a
// transcript line are indented.
func indentContinuation(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	render.Indent(&b, s, false)
	return b.String()
}

// WrappedTranscript is the summarizer's user message for indices from a
// compactor whose ledger is off.
func WrappedTranscript(messages []*schema.Message, indices []int) string {
	w, _ := transcript.Wrapped(messages, indices, transcript.View{Request: transcript.Spanned(messages, indices)})
	return w
}

// The summary's output budget, for the external tests that check what a
// round sends: SummaryBudgetBase plus 1/SummaryBudgetShare of the replaced
// tokens, at most SummaryBudgetMax, sent with 1/BudgetHeadroomShare more as
// max output tokens.
const (
	SummaryBudgetBase   = cost.SummaryBase
	SummaryBudgetShare  = cost.SummaryShare
	SummaryBudgetMax    = cost.SummaryMax
	BudgetHeadroomShare = request.HeadroomShare
)
