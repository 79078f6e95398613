package compaction

import (
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// TestArchiveRefs: references issued with a key check with it and name
// their conversation (ArchiveConversation follows them), are refused with
// another key or altered, and a short key or a bad conversation is refused.
func TestArchiveRefs(t *testing.T) {
	t.Parallel()
	if _, err := NewArchiveRefs([]byte("short")); err == nil || !strings.Contains(err.Error(), "5 bytes") {
		t.Fatalf("short key: %v", err)
	}
	refs, err := NewArchiveRefs([]byte(strings.Repeat("a", 32)))
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewArchiveRefs([]byte(strings.Repeat("b", 32)))
	if err != nil {
		t.Fatal(err)
	}
	conv := arcConv(t, "start")
	ref, entry, err := refs.Issue(conv)
	if err != nil {
		t.Fatal(err)
	}
	if c, e, err := refs.Check(ref); err != nil || c != conv || e != entry {
		t.Fatalf("Check = %q %q %v, want %q %q", c, e, err, conv, entry)
	}
	if _, _, err := other.Check(ref); !errors.Is(err, ErrArchiveReference) {
		t.Fatalf("another key: %v", err)
	}
	if _, _, err := (ArchiveRefs{}).Check(ref); !errors.Is(err, ErrArchiveReference) {
		t.Fatalf("zero value: %v", err)
	}
	if _, _, err := refs.Issue("cvnothex"); err == nil || !strings.Contains(err.Error(), "cvnothex") {
		t.Fatalf("bad conversation: %v", err)
	}
	marked := schema.AssistantMessage("summary", nil)
	marked.Extra = map[string]any{MetaKey: NewMarker(StrategySummarization, 2, map[string]any{archive.MarkerKey: ref})}
	if c, ok := ArchiveConversation([]*schema.Message{sys("rules"), user("other"), marked}); !ok || c != conv {
		t.Fatalf("lineage: %q %v, want %q", c, ok, conv)
	}
}

// TestArchiveDefaultsMatch: the public defaults, written out for godoc,
// are the values the file store applies.
func TestArchiveDefaultsMatch(t *testing.T) {
	t.Parallel()
	if DefaultArchiveTTL != archive.DefaultTTL || DefaultArchiveMaxBytes != archive.DefaultMaxBytes || MinArchiveKeyBytes != archive.MinKeyBytes {
		t.Fatalf("public defaults %v %d %d, the store's %v %d %d", DefaultArchiveTTL, DefaultArchiveMaxBytes, MinArchiveKeyBytes,
			archive.DefaultTTL, archive.DefaultMaxBytes, archive.MinKeyBytes)
	}
}

// TestPointerNamesRecallTool: the line an archived compaction's summary
// ends with tells the model to call the tool by the name NewRecallTool
// gives it, though RecallToolName is written out here for godoc and the
// line is written in internal/summary.
func TestPointerNamesRecallTool(t *testing.T) {
	t.Parallel()
	if line := summarytext.Pointer(3, "arc1-ref"); !strings.Contains(line, " call the "+RecallToolName+" tool ") {
		t.Fatalf("pointer line %q does not name the %q tool", line, RecallToolName)
	}
}
