package identifiers_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/einocompact/einocompact/bench"
	"github.com/einocompact/einocompact/eval"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
)

// TestExtractMatchesReference checks that the default extractors find
// exactly what the reference copies of the path and error extractors (as
// written before their speed-ups) find, in the texts the ledger reads: each
// message of the benchmark conversations and of the fidelity corpus rendered
// as the ledger renders it, their transcripts, and random text built from
// the characters the extractors care about, non-ASCII case included.
func TestExtractMatchesReference(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, n := range []int{100, 1000} {
		msgs := bench.Conversation(n, uint64(n))
		for _, m := range msgs {
			texts = append(texts, compaction.RenderMessage(m, compaction.RenderOptions{Attachment: compaction.DescribeAttachment}))
		}
		texts = append(texts, compaction.Transcript(msgs, seq(len(msgs))))
	}
	for _, tr := range eval.Corpus(2026, 20) {
		for _, m := range tr.Messages {
			texts = append(texts, compaction.RenderMessage(m, compaction.RenderOptions{Attachment: compaction.DescribeAttachment}))
		}
		texts = append(texts, compaction.Transcript(tr.Messages, seq(len(tr.Messages))))
	}
	r := rand.New(rand.NewPCG(13, 13))
	pool := []string{"a", "Z", "/", "\\", ".", ":", "!", "?", "*", " ", "\t", "\n", "\"", "'", "`", "-", "[", "] ",
		"C:", "go", ".GO", ".Md", "~/", "./", "../", "//", "://", "ERROR", "Error", "error", "FAIL", "panic", "Fatal",
		"İnvalid", "tracebacK", "Traceback", "TIMED OUT", "not found", "x_1", "é", "\xff", "Exception", "java.io.IOException",
		"deadbeef1", "0123abcd", "12345678-1234-1234-1234-123456789abc", "req-", "_"}
	for range 3000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		texts = append(texts, b.String())
	}
	ref := identifiers.ReferenceExtractors()
	for _, text := range texts {
		got, want := identifiers.Extract(text, nil), identifiers.Extract(text, ref)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Extract(%.200q):\n got %v\nwant %v", text, got, want)
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
