package compaction

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// arcConv is a conversation key for tests.
func arcConv(t *testing.T, first string) string {
	t.Helper()
	conv, ok := ArchiveConversation([]*schema.Message{sys("rules"), user(first)})
	if !ok {
		t.Fatal("no conversation key")
	}
	return conv
}

func arcNew(t *testing.T, dir string, opts ...FileArchiveOption) *FileArchive {
	t.Helper()
	a, err := NewFileArchive(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func arcPut(t *testing.T, a Archive, conv string, msgs ...*schema.Message) string {
	t.Helper()
	ref, err := a.Put(context.Background(), conv, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestFileArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	a := arcNew(t, t.TempDir())
	conv := arcConv(t, "start")
	in := []*schema.Message{call("c1"), result("c1", "exact output\nline two \"quoted\"")}
	ref := arcPut(t, a, conv, in...)
	gotConv, got, err := a.Get(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if gotConv != conv {
		t.Fatalf("conversation %q, want %q", gotConv, conv)
	}
	if PrefixDigest(got) != PrefixDigest(in) {
		t.Fatalf("archived messages differ by content:\n%s\nwant\n%s", Render(got, RenderOptions{ToolCallIDs: true}), Render(in, RenderOptions{ToolCallIDs: true}))
	}
}

// TestFileArchiveConcurrentWriters: archives opened separately on one
// directory (separate descriptors, as separate processes have) write one
// conversation at once; every entry reads back whole, and all share one key.
func TestFileArchiveConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conv := arcConv(t, "shared")
	const writers, each = 4, 25
	archives := make([]*FileArchive, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { archives[w] = arcNew(t, dir) })
	}
	wg.Wait()
	refs := make([][]string, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				ref, err := archives[w].Put(context.Background(), conv, []*schema.Message{result("c1", fmt.Sprintf("writer %d entry %d %s", w, i, strings.Repeat("z", 3000)))})
				if err != nil {
					t.Error(err)
					return
				}
				refs[w] = append(refs[w], ref)
			}
		})
	}
	wg.Wait()
	reader := arcNew(t, dir)
	for w := range writers {
		for i, ref := range refs[w] {
			_, got, err := reader.Get(context.Background(), ref)
			if err != nil {
				t.Fatalf("writer %d entry %d: %v", w, i, err)
			}
			if want := fmt.Sprintf("writer %d entry %d ", w, i); !strings.HasPrefix(got[0].Content, want) {
				t.Fatalf("writer %d entry %d reads %.40q", w, i, got[0].Content)
			}
		}
	}
}

// TestFileArchiveOptions: the options reach the file store: a negative
// value is refused naming the option and the value, and an entry larger
// than the cap WithArchiveMaxBytes sets is refused naming the cap.
func TestFileArchiveOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := NewFileArchive(dir, WithArchiveMaxBytes(-1)); err == nil || !strings.Contains(err.Error(), "MaxBytes") || !strings.Contains(err.Error(), "-1") {
		t.Fatalf("negative cap: %v", err)
	}
	if _, err := NewFileArchive(dir, WithArchiveTTL(-time.Second)); err == nil || !strings.Contains(err.Error(), "TTL") || !strings.Contains(err.Error(), "-1s") {
		t.Fatalf("negative TTL: %v", err)
	}
	const max = 4 << 10
	a := arcNew(t, dir, WithArchiveMaxBytes(max), WithArchiveTTL(time.Hour))
	if _, err := a.Put(context.Background(), arcConv(t, "start"), []*schema.Message{user(strings.Repeat("y", max))}); err == nil || !strings.Contains(err.Error(), fmt.Sprint(max)) {
		t.Fatalf("an entry larger than the cap: %v", err)
	}
	if _, err := NewFileArchive(""); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("no directory: %v", err)
	}
}
