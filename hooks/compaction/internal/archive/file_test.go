package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// TestFileArchiveRefusesForgedReferences: a reference the archive did not
// issue, whatever part of it was changed, is refused as such, also one
// issued by another archive (another key) for the same conversation.
func TestFileArchiveRefusesForgedReferences(t *testing.T) {
	t.Parallel()
	a := arcNew(t, t.TempDir(), Config{})
	other := arcNew(t, t.TempDir(), Config{})
	conv := arcConv(t, "start")
	ref := arcPut(t, a, conv, user("secret"))
	foreign := arcPut(t, other, conv, user("secret"))
	_, entry, mac, err := parseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(s string) string {
		b := []byte(s)
		if b[len(b)-1] == '0' {
			b[len(b)-1] = '1'
		} else {
			b[len(b)-1] = '0'
		}
		return string(b)
	}
	otherConv := arcConv(t, "another")
	for name, bad := range map[string]string{
		"signature altered":            strings.TrimSuffix(ref, mac) + flip(mac),
		"entry altered":                strings.Replace(ref, entry, flip(entry), 1),
		"conversation swapped":         strings.Replace(ref, conv, otherConv, 1),
		"another archive's reference":  foreign,
		"empty":                        "",
		"garbage":                      "please show me everything",
		"path traversal":               refPrefix + "cv../../etc-0011223344556677-001122334455667788990011",
		"upper-case hex":               strings.ToUpper(ref),
		"guessed entry, no signature":  refPrefix + conv + "-" + entry,
		"valid form, random signature": strings.TrimSuffix(ref, mac) + strings.Repeat("ab", refMACBytes),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := a.Get(context.Background(), bad); !errors.Is(err, ErrReference) {
				t.Fatalf("Get(%q) = %v, want ErrReference", bad, err)
			}
		})
	}
}

// TestFileArchiveTTL: an entry past its TTL is not found, one within it is.
func TestFileArchiveTTL(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	a := arcNew(t, t.TempDir(), Config{TTL: time.Hour, Now: clock})
	conv := arcConv(t, "start")
	old := arcPut(t, a, conv, user("old"))
	advance(59 * time.Minute)
	young := arcPut(t, a, conv, user("young"))
	advance(2 * time.Minute)
	if _, _, err := a.Get(context.Background(), old); !errors.Is(err, ErrNotFound) {
		t.Fatalf("entry past its TTL: %v, want ErrNotFound", err)
	}
	if _, got, err := a.Get(context.Background(), young); err != nil || got[0].Content != "young" {
		t.Fatalf("entry within its TTL: %v, %v", got, err)
	}
}

func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), fileExt) {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += info.Size()
		}
	}
	return n
}

// TestFileArchiveSizeCap: the directory stays within the cap (plus the
// sixteenth a process may write between sweeps), the oldest conversations
// go first, and a conversation alone above the cap keeps its newest entry.
func TestFileArchiveSizeCap(t *testing.T) {
	t.Parallel()
	const max = 32 << 10
	dir := t.TempDir()
	a := arcNew(t, dir, Config{MaxBytes: max})
	body := strings.Repeat("x", 1000)
	var refs []string
	for i := range 200 {
		refs = append(refs, arcPut(t, a, arcConv(t, fmt.Sprint("conv ", i)), result("c1", body)))
		if n := dirBytes(t, dir); n > max+max/16 {
			t.Fatalf("after %d conversations the archive holds %d bytes, cap %d", i+1, n, max)
		}
	}
	if _, _, err := a.Get(context.Background(), refs[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("oldest conversation: %v, want evicted", err)
	}
	if _, _, err := a.Get(context.Background(), refs[len(refs)-1]); err != nil {
		t.Fatalf("newest conversation: %v", err)
	}

	one := arcConv(t, "one long conversation")
	var last string
	for range 200 {
		last = arcPut(t, a, one, result("c1", body))
	}
	if n := dirBytes(t, dir); n > max+max/16 {
		t.Fatalf("one conversation: the archive holds %d bytes, cap %d", n, max)
	}
	if _, _, err := a.Get(context.Background(), last); err != nil {
		t.Fatalf("newest entry of a trimmed conversation: %v", err)
	}
	if _, err := (Config{MaxBytes: -1}).Open(dir); err == nil || !strings.Contains(err.Error(), "MaxBytes") || !strings.Contains(err.Error(), "-1") {
		t.Fatalf("negative cap: %v", err)
	}
	if _, err := (Config{TTL: -time.Second}).Open(dir); err == nil || !strings.Contains(err.Error(), "TTL") {
		t.Fatalf("negative TTL: %v", err)
	}
	if _, err := a.Put(context.Background(), one, []*schema.Message{user(strings.Repeat("y", max))}); err == nil {
		t.Fatal("an entry larger than the cap was archived")
	}
}

// TestFileArchiveCrashMidWrite: a record cut short (the file truncated in
// the middle of it, as a crash leaves it) is skipped; the entries before it
// read, and so does the next one written.
func TestFileArchiveCrashMidWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := arcNew(t, dir, Config{})
	conv := arcConv(t, "start")
	first := arcPut(t, a, conv, user("first"))
	path := filepath.Join(dir, conv+fileExt)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := arcPut(t, a, conv, result("c1", strings.Repeat("torn ", 200)))
	full, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()+(full.Size()-info.Size())/2); err != nil {
		t.Fatal(err)
	}
	if _, got, err := a.Get(context.Background(), first); err != nil || got[0].Content != "first" {
		t.Fatalf("entry before the torn one: %v %v", got, err)
	}
	if _, _, err := a.Get(context.Background(), torn); !errors.Is(err, ErrNotFound) {
		t.Fatalf("torn entry: %v, want ErrNotFound", err)
	}
	after := arcPut(t, arcNew(t, dir, Config{}), conv, user("after the crash"))
	if _, got, err := a.Get(context.Background(), after); err != nil || got[0].Content != "after the crash" {
		t.Fatalf("entry written after the crash: %v %v", got, err)
	}
}
