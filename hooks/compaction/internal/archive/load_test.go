package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

// The file archive's load test: 10,000 conversations, a cap of 256 KiB
// (about 700 of them), entries of about 400 bytes.
const (
	loadConversations = 10_000
	loadMaxBytes      = 256 << 10
)

var loadBody = strings.Repeat("build output line\n", 12)

func loadMessages(i int) []*schema.Message {
	return []*schema.Message{result("c1", fmt.Sprintf("conversation %d\n%s", i, loadBody))}
}

// TestFileArchiveLoadOneProcess: one archive writing 2,000 conversations
// (three times what the cap holds) keeps its directory, every file
// counted, within the cap, checked after every 16th entry (a process
// writes about 40 between sweeps), while still holding at least half the
// cap.
func TestFileArchiveLoadOneProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := arcNew(t, dir, Config{MaxBytes: loadMaxBytes})
	var peak int64
	var ref string
	const conversations = 2000
	for i := range conversations {
		ref = arcPut(t, a, arcConv(t, fmt.Sprint("load conversation ", i)), loadMessages(i)...)
		if i%16 != 15 {
			continue
		}
		n := allFileBytes(dir)
		peak = max(peak, n)
		if n > loadMaxBytes {
			t.Fatalf("after %d conversations the directory holds %d bytes, cap %d", i+1, n, loadMaxBytes)
		}
	}
	t.Logf("%d conversations, one process: peak %d bytes (cap %d)", conversations, peak, loadMaxBytes)
	if final := allFileBytes(dir); final < loadMaxBytes/2 {
		t.Fatalf("the directory holds %d bytes at the end, under half its cap %d: it evicted far more than needed", final, loadMaxBytes)
	}
	if _, _, err := a.Get(context.Background(), ref); err != nil {
		t.Fatalf("the newest entry: %v", err)
	}
}

// TestFileArchiveLoadStaysWithinCap: 10,000 conversations archived through
// four archives on one directory (as four processes share it), two writers
// each. The directory's bytes, every file in it counted, sampled
// every 32 entries a writer makes, never exceed the cap plus the sixteenth
// each other archive may write between its sweeps plus the records in
// flight; afterwards each archive's next entry reads back through another.
func TestFileArchiveLoadStaysWithinCap(t *testing.T) {
	t.Parallel()
	const archives, writers = 4, 2 // writers per archive
	dir := t.TempDir()
	as := make([]*File, archives)
	for i := range as {
		as[i] = arcNew(t, dir, Config{MaxBytes: loadMaxBytes})
	}
	record := int64(len(encodeRecord(strings.Repeat("0", 2*refEntryBytes), []byte(`{"t":0,"m":[]}`))) + len(loadBody) + 200) // above any record written here
	bound := int64(loadMaxBytes) + (archives-1)*loadMaxBytes/16 + archives*writers*record

	convs := make([]string, loadConversations)
	for i := range convs {
		convs[i] = arcConv(t, fmt.Sprint("load conversation ", i))
	}
	tick := make(chan struct{}, 1)
	var peak, samples int64
	var monitor sync.WaitGroup
	monitor.Go(func() {
		for range tick {
			// Under the exclusive gate no write nor sweep runs: a listing
			// taken while files come and go mixes several moments.
			release, err := as[0].gate(true)
			if err != nil {
				t.Error(err)
				return
			}
			peak = max(peak, allFileBytes(dir))
			release()
			samples++
		}
	})
	var wg sync.WaitGroup
	for w := range archives * writers {
		wg.Go(func() {
			a := as[w/writers]
			for i := w; i < loadConversations; i += archives * writers {
				if _, err := a.Put(context.Background(), convs[i], loadMessages(i)); err != nil {
					t.Error(err)
					return
				}
				if i%32 == 0 {
					select {
					case tick <- struct{}{}:
					default: // a sample is pending
					}
				}
			}
		})
	}
	wg.Wait()
	close(tick)
	monitor.Wait()
	final := allFileBytes(dir)
	files, _ := os.ReadDir(dir)
	t.Logf("%d conversations, %d archives: peak %d bytes over %d samples, final %d bytes in %d files; cap %d, bound %d",
		loadConversations, archives, peak, samples, final, len(files), loadMaxBytes, bound)
	if peak > bound || final > bound {
		t.Fatalf("the directory held %d bytes at its peak, %d at the end; cap %d, bound %d", peak, final, loadMaxBytes, bound)
	}
	for i, a := range as {
		ref := arcPut(t, a, arcConv(t, fmt.Sprint("after the load ", i)), loadMessages(i)...)
		if _, got, err := as[(i+1)%archives].Get(context.Background(), ref); err != nil || len(got) != 1 {
			t.Fatalf("archive %d's entry after the load: %v", i, err)
		}
	}
}

// allFileBytes sums the sizes of every regular file in dir; a file removed
// while it is read counts nothing.
func allFileBytes(dir string) int64 {
	entries, _ := os.ReadDir(dir)
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// TestFileArchiveSweepsCrashLeftovers: a trim's temporary file that a
// crash left (an hour old) is removed by the next sweep, and one as young
// as a running trim's is kept; both count against the cap meanwhile.
func TestFileArchiveSweepsCrashLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const maxBytes = 64 << 10
	stale, fresh := filepath.Join(dir, trimTempPrefix+"stale"), filepath.Join(dir, trimTempPrefix+"fresh")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte(strings.Repeat("x", 8<<10)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-staleTemp - time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	a := arcNew(t, dir, Config{MaxBytes: maxBytes})
	for i := range 400 { // about three caps
		arcPut(t, a, arcConv(t, fmt.Sprint("leftovers ", i)), loadMessages(i)...)
		if n := allFileBytes(dir); n > maxBytes {
			t.Fatalf("after %d entries the directory holds %d bytes, cap %d", i+1, n, maxBytes)
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the stale temporary file: %v, want removed", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("the young temporary file: %v, want kept", err)
	}
}
