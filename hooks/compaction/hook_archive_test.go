package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	summarytext "github.com/einocompact/einocompact/hooks/compaction/internal/summary"
)

// harcLong is a conversation of four tool steps whose results are large
// enough that a hook of window 1000 (fc4) compacts it.
func harcLong() []*schema.Message {
	msgs := []*schema.Message{sys("rules"), user("start")}
	for i := range 4 {
		id := fmt.Sprint("c", i+1)
		msgs = append(msgs, call(id), result(id, fmt.Sprintf("exact output %d: %s", i+1, rep("data ", 180))))
	}
	return msgs
}

func harcHook(t *testing.T, c Compactor, a Archive) *CompactionHook {
	t.Helper()
	h, err := NewCompactionHook(context.Background(), &HookConfig{Compactor: c, ContextWindow: 1000, TokenCounter: fc4,
		Logger: slog.New(slog.DiscardHandler), Archive: a})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHookArchivesWhatCompactionRemoves: for each model-free compactor, the
// hook archives exactly the messages the result no longer holds, the
// messages that replaced them end with the pointer naming the reference,
// the caller's messages are untouched, and without an archive the result is
// what it was.
func TestHookArchivesWhatCompactionRemoves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slide, err := NewSlidingWindowCompactor(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prune, err := NewToolResultPruningCompactor(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		compactor Compactor
		strategy  string
	}{{"sliding window", slide, StrategySlidingWindow}, {"pruning", prune, StrategyToolResultPruning}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := arcNew(t, t.TempDir())
			in := harcLong()
			kept := slices.Clone(in)
			digests := PrefixDigest(in)
			st := &hooks.State{Messages: in}
			r, err := harcHook(t, tc.compactor, a).Decide(ctx, st)
			if err != nil || !r.Compacted {
				t.Fatalf("Decide = %+v, %v; want a compaction", r, err)
			}
			if !slices.Equal(in, kept) || PrefixDigest(in) != digests {
				t.Fatal("the caller's messages changed")
			}
			if r.ArchiveRef == "" {
				t.Fatal("Report.ArchiveRef is empty")
			}
			conv, archived, err := a.Get(ctx, r.ArchiveRef)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := ArchiveConversation(in); conv != want {
				t.Fatalf("archived under %q, want the conversation's %q", conv, want)
			}
			if want := removedByContent(in, st.Messages); len(want) == 0 || PrefixDigest(archived) != PrefixDigest(want) {
				t.Fatalf("archived %d messages, not the %d removed", len(archived), len(want))
			}
			pointers := 0
			for _, m := range st.Messages {
				if IsStrategy(m, tc.strategy) {
					ref, ok := ArchiveRefOf(m)
					if !ok || ref != r.ArchiveRef || !strings.HasSuffix(m.Content, summarytext.Pointer(len(archived), r.ArchiveRef)) {
						t.Fatalf("a %s message does not point at the archive: %q", tc.strategy, m.Content)
					}
					pointers++
				}
			}
			if pointers == 0 {
				t.Fatal("no message points at the archive")
			}

			plain := &hooks.State{Messages: harcLong()}
			pr, err := harcHook(t, tc.compactor, nil).Decide(ctx, plain)
			if err != nil || !pr.Compacted || pr.ArchiveRef != "" {
				t.Fatalf("without an archive: %+v, %v", pr, err)
			}
			for _, m := range plain.Messages {
				if _, ok := ArchiveRefOf(m); ok || strings.Contains(m.Content, RecallToolName) {
					t.Fatalf("without an archive a message mentions it: %q", m.Content)
				}
			}
		})
	}
}

// TestHookArchiveLineage: a second compaction of a compacted conversation
// archives under the same conversation key, so the recall tool scoped to
// the conversation as it stands reads both references.
func TestHookArchiveLineage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slide, _ := NewSlidingWindowCompactor(ctx, nil)
	a := arcNew(t, t.TempDir())
	h := harcHook(t, slide, a)
	st := &hooks.State{Messages: harcLong()}
	first, err := h.Decide(ctx, st)
	if err != nil || first.ArchiveRef == "" {
		t.Fatalf("first compaction: %+v %v", first, err)
	}
	for i := 5; i < 9; i++ {
		id := fmt.Sprint("c", i)
		st.Messages = append(st.Messages, call(id), result(id, rep("more ", 150)))
	}
	second, err := h.Decide(ctx, st)
	if err != nil || second.ArchiveRef == "" || second.ArchiveRef == first.ArchiveRef {
		t.Fatalf("second compaction: %+v %v", second, err)
	}
	conv, ok := ArchiveConversation(st.Messages)
	if !ok {
		t.Fatal("no conversation key")
	}
	recall, err := NewRecallTool(a)
	if err != nil {
		t.Fatal(err)
	}
	scoped := WithConversation(ctx, conv)
	for _, ref := range []string{first.ArchiveRef, second.ArchiveRef} {
		if _, err := recall.InvokableRun(scoped, fmt.Sprintf(`{"reference":%q}`, ref)); err != nil {
			t.Fatalf("recall %s in its own conversation: %v", ref, err)
		}
	}
	other, _ := ArchiveConversation([]*schema.Message{sys("rules"), user("someone else")})
	if _, err := recall.InvokableRun(WithConversation(ctx, other), fmt.Sprintf(`{"reference":%q}`, first.ArchiveRef)); !errors.Is(err, ErrArchiveScope) {
		t.Fatalf("recall from another conversation: %v, want ErrArchiveScope", err)
	}
}

// harcFailing is an Archive whose Put fails.
type harcFailing struct{ Archive }

func (harcFailing) Put(context.Context, string, []*schema.Message) (string, error) {
	return "", errors.New("disk full")
}

// TestHookArchiveFailureStillCompacts: an archive that fails costs the
// pointer, never the compaction.
func TestHookArchiveFailureStillCompacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slide, _ := NewSlidingWindowCompactor(ctx, nil)
	st := &hooks.State{Messages: harcLong()}
	r, err := harcHook(t, slide, harcFailing{}).Decide(ctx, st)
	if err != nil || !r.Compacted || r.ArchiveRef != "" {
		t.Fatalf("Decide = %+v, %v", r, err)
	}
	var nilArchive *FileArchive
	if _, err := NewCompactionHook(ctx, &HookConfig{Compactor: slide, ContextWindow: 1000, Archive: nilArchive}); err == nil || !strings.Contains(err.Error(), "HookConfig.Archive") {
		t.Fatalf("a nil *FileArchive: %v", err)
	}
}

// removedByContent is the messages of before, in order, that after does not
// hold by content, each occurrence counted once: what the hook must archive.
func removedByContent(before, after []*schema.Message) []*schema.Message {
	held := map[Digest]int{}
	for _, m := range after {
		held[MessageDigest(m)]++
	}
	var out []*schema.Message
	for _, m := range before {
		if d := MessageDigest(m); held[d] > 0 {
			held[d]--
		} else {
			out = append(out, m)
		}
	}
	return out
}
