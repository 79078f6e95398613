package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"
	"github.com/einocompact/einocompact/hooks/compaction/internal/transcript"
)

// TestArchivePointerKeepsTheSummaryReadable: the archive's pointer line
// after a summary's closing tag is not part of the summary: its body, its
// ledger block and the identifiers a fold reads from it are what they are
// without the pointer. Before, the pointer hid the closing tag, so the
// block was not found (a fold lost the identifiers only it listed) and the
// tags were read as conversation text ("/conversation_summary").
func TestArchivePointerKeepsTheSummaryReadable(t *testing.T) {
	t.Parallel()
	signer, err := archive.NewSigner([]byte("a key of at least sixteen bytes"))
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := archive.ConversationOf(nil, []*schema.Message{schema.UserMessage("task")})
	ref, _, err := signer.Issue(conv)
	if err != nil {
		t.Fatal(err)
	}
	plain := summarytext.New("## Work completed\n- read manifests\n\n"+summarytext.LedgerHeading+"\n- deploy/prod.yaml\n- call_b2", 4, nil)
	pointed := withArchivePointer(plain, summarytext.Pointer(4, ref), ref)
	if !strings.HasSuffix(pointed.Content, "\n"+summarytext.Pointer(4, ref)) {
		t.Fatalf("the pointer is not the last line: %q", pointed.Content)
	}
	if got, want := transcript.SummaryBody(pointed), transcript.SummaryBody(plain); got != want {
		t.Fatalf("summary body with the pointer:\n%q\nwant\n%q", got, want)
	}
	if got, want := summarytext.BlockValues(pointed.Content), summarytext.BlockValues(plain.Content); len(want) != 2 || !slices.Equal(got, want) {
		t.Fatalf("ledger block values with the pointer %q, want %q", got, want)
	}
	_, block, _ := summarytext.Split(pointed.Content)
	if _, want, _ := summarytext.Split(plain.Content); block != want {
		t.Fatalf("SplitLedger's block with the pointer %q, want %q", block, want)
	}
	l, err := ledger.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Collect([]*schema.Message{pointed}, []int{0}) {
		if strings.Contains(e.Value(), "conversation_summary") || strings.Contains(e.Value(), "arc1-") {
			t.Fatalf("the fold reads %q as an identifier of the conversation", e.Value())
		}
	}
}

// TestMissingIndexesByContent: a copy of a message (another pointer, the
// same content) counts as held; a second occurrence counts once.
func TestMissingIndexesByContent(t *testing.T) {
	t.Parallel()
	x := schema.UserMessage("x")
	cp := *x
	for _, tc := range []struct {
		name string
		a, b []*schema.Message
		want []int
	}{
		{"copy is held", []*schema.Message{x}, []*schema.Message{&cp}, nil},
		{"twice in a, once in b", []*schema.Message{x, &cp}, []*schema.Message{x}, []int{1}},
		{"different content", []*schema.Message{schema.UserMessage("y"), x}, []*schema.Message{x}, []int{0}},
	} {
		if got := missingIndexes(tc.a, tc.b); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
