package ledger

import (
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// LedgerEntry is an identifier collect found, with its uses and last
// position; tests compare them whole.
type LedgerEntry = Entry

// DefaultCollect is the default ledger's Collect over indices.
func DefaultCollect(messages []*schema.Message, indices []int) []LedgerEntry {
	l, _ := New(nil)
	return l.Collect(messages, indices)
}

// ReferenceCollect is Collect as it was written before it reused one
// identifiers.Scanner for all messages: identifiers.Extract over each
// message's rendering.
func ReferenceCollect(messages []*schema.Message, indices []int) []LedgerEntry {
	extractors := identifiers.DefaultExtractors()
	byValue := map[string]int{}
	var entries []Entry
	note := func(v string, pos int) {
		if i, ok := byValue[v]; ok {
			entries[i].uses++
			entries[i].last = pos
			return
		}
		byValue[v] = len(entries)
		entries = append(entries, Entry{value: v, uses: 1, last: pos})
	}
	for pos, i := range indices {
		m := messages[i]
		if fields, ok := message.CopyFields(m); ok {
			remembered := Remembered(fields[MarkerKey])
			for _, v := range remembered {
				note(v, pos)
			}
			for _, v := range summarytext.BlockValues(m.Content) {
				if !slices.Contains(remembered, v) {
					note(v, pos)
				}
			}
		}
		var text string
		if message.Is(m, message.StrategySummarization) {
			text = spotlight.UnmarkAll(transcript.SummaryBody(m))
		} else {
			var b strings.Builder
			render.Message(&b, m, render.Options{Attachment: render.Describe})
			text = b.String()
		}
		for _, match := range identifiers.Extract(text, extractors) {
			note(match.Value, pos)
		}
	}
	return entries
}
