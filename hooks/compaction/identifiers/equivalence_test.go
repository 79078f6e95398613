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

// TestScanPathsAndHexOnConversations runs CheckScanPathsAndHex on every
// message of the benchmark conversations as the ledger renders it, and on
// their transcripts.
func TestScanPathsAndHexOnConversations(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 1000} {
		msgs := bench.Conversation(n, uint64(n))
		texts := []string{compaction.Transcript(msgs, seq(len(msgs)))}
		for _, m := range msgs {
			texts = append(texts, compaction.RenderMessage(m, compaction.RenderOptions{Attachment: compaction.DescribeAttachment}))
		}
		for _, text := range texts {
			if msg := identifiers.CheckScanPathsAndHex(text); msg != "" {
				t.Fatal(msg)
			}
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

// TestArgumentKeysMatchLikeEqualFold checks the last-byte test before
// EqualFold in Arguments against keys whose last letter folds to another
// code point (the Kelvin sign, the long s) or is upper case.
func TestArgumentKeysMatchLikeEqualFold(t *testing.T) {
	t.Parallel()
	ex := identifiers.Arguments("path", "disk", "class", "uri", "id9")
	for _, key := range []string{"path", "PATH", "file_pATh", "pat\u0127", "disk", "dis\u212a", "DISK", "clas\u017f", "CLASS", "uri", "URI", "id9", "xid9", "pat"} {
		text := `{"` + key + `": "v"}`
		got := len(ex.Extract(text)) > 0
		want := false
		for _, n := range []string{"path", "disk", "class", "uri", "id9"} {
			if len(key) >= len(n) && strings.EqualFold(key[len(key)-len(n):], n) {
				cut := len(key) - len(n)
				want = want || cut == 0 || key[cut-1] == '_' || key[cut-1] == '-' ||
					'A' <= key[cut] && key[cut] <= 'Z' && !('A' <= key[cut-1] && key[cut-1] <= 'Z')
			}
		}
		if got != want {
			t.Errorf("key %q: matched %v, want %v", key, got, want)
		}
	}
}
