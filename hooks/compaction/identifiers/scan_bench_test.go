package identifiers_test

import (
	"fmt"
	"testing"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// BenchmarkScanConversation is the ledger's extraction over the messages of
// the 1,000-message benchmark conversation, each rendered as the ledger
// renders it: all default extractors through one Scanner, and each
// extractor alone, to tell where extraction's time goes.
func BenchmarkScanConversation(b *testing.B) {
	var texts []string
	var size int64
	for _, m := range bench.Conversation(1000, 1000) {
		t := compaction.RenderMessage(m, compaction.RenderOptions{Attachment: compaction.DescribeAttachment})
		texts = append(texts, t)
		size += int64(len(t))
	}
	run := func(name string, ex []identifiers.Extractor) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			s := identifiers.NewScanner(ex)
			for b.Loop() {
				for _, t := range texts {
					s.Scan(t)
				}
			}
		})
	}
	run("all", nil)
	d := identifiers.DefaultExtractors()
	run("paths+uuids+hashes", d[2:5])
	names := []string{"attachments", "urls", "paths", "uuids", "hashes", "quoted_errors", "error_lines", "arguments"}
	for i, ex := range identifiers.DefaultExtractors() {
		run(fmt.Sprint(names[i]), []identifiers.Extractor{ex})
	}
}
