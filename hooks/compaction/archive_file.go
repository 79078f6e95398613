package compaction

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
)

// Defaults of a FileArchive.
const (
	// DefaultArchiveTTL is how long a FileArchive keeps an entry.
	DefaultArchiveTTL = 24 * time.Hour
	// DefaultArchiveMaxBytes bounds a FileArchive's directory.
	DefaultArchiveMaxBytes = 256 << 20
)

// FileArchive is an Archive in a directory: one append-only file per
// conversation ("CONV.arc"), and the key that signs references
// ("archive.key", made once, by whichever process comes first). Several
// processes may share the directory (replicas on one host or one shared
// volume that honours flock): a record is written with one write call on a
// file opened for appending, under an exclusive flock, and every record
// carries a checksum, so a crash mid-write leaves a torn last record that
// readers skip and the next writer starts after.
//
// Entries live TTL (WithArchiveTTL) and the directory stays within MaxBytes
// (WithArchiveMaxBytes): past it, whole conversations are evicted, the least
// recently written first, and a single conversation larger than the cap
// keeps its newest entries. Every file in the directory counts (the key,
// and the temporary files a crash mid-trim leaves, which a sweep removes
// once they are an hour old). A process sweeps before a write that would
// take what it wrote since its last sweep past a sixteenth of the cap, and
// leaves room for that sixteenth: one writing process keeps the directory
// within the cap, and each further process sharing it may take it past
// the cap by up to a sixteenth more.
type FileArchive struct {
	dir      string
	ttl      time.Duration
	maxBytes int64
	signer   refSigner
	now      func() time.Time

	mu      sync.Mutex
	written int64 // bytes this process wrote or is writing since its last sweep

	sweeping sync.Mutex // one sweep of this process at a time (makeRoom)
}

var _ Archive = (*FileArchive)(nil)

// FileArchiveOption sets a FileArchive's option.
type FileArchiveOption func(*FileArchive)

// WithArchiveTTL sets how long entries are kept; 0 keeps the default,
// DefaultArchiveTTL; it must not be negative.
func WithArchiveTTL(ttl time.Duration) FileArchiveOption {
	return func(a *FileArchive) { a.ttl = ttl }
}

// WithArchiveMaxBytes bounds the directory's size in bytes; 0 keeps the
// default, DefaultArchiveMaxBytes; it must not be negative.
func WithArchiveMaxBytes(n int64) FileArchiveOption {
	return func(a *FileArchive) { a.maxBytes = n }
}

// archiveClock replaces the clock, for tests of the TTL.
func archiveClock(now func() time.Time) FileArchiveOption {
	return func(a *FileArchive) { a.now = now }
}

const (
	archiveExt     = ".arc"
	archiveKeyFile = "archive.key"
)

// NewFileArchive returns a FileArchive in dir, creating dir (0700) and its
// key when missing. Errors name the bad option and its value.
func NewFileArchive(dir string, opts ...FileArchiveOption) (*FileArchive, error) {
	if dir == "" {
		return nil, errors.New("compaction: NewFileArchive needs a directory, got \"\"")
	}
	a := &FileArchive{dir: dir, now: time.Now}
	for _, o := range opts {
		o(a)
	}
	if a.ttl < 0 {
		return nil, fmt.Errorf("compaction: FileArchive TTL must be positive (or 0: default %v), got %v", DefaultArchiveTTL, a.ttl)
	}
	if a.maxBytes < 0 {
		return nil, fmt.Errorf("compaction: FileArchive MaxBytes must be positive (or 0: default %d), got %d", DefaultArchiveMaxBytes, a.maxBytes)
	}
	if a.ttl == 0 {
		a.ttl = DefaultArchiveTTL
	}
	if a.maxBytes == 0 {
		a.maxBytes = DefaultArchiveMaxBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("compaction: FileArchive directory %q: %w", dir, err)
	}
	key, err := loadArchiveKey(dir)
	if err != nil {
		return nil, err
	}
	a.signer = refSigner{key: key}
	return a, nil
}

// loadArchiveKey reads the directory's signing key, making it first if
// needed. The key is written to a temporary file and linked into place, so
// two processes starting together agree on one key and neither reads a
// partial one.
func loadArchiveKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, archiveKeyFile)
	for range 3 {
		raw, err := os.ReadFile(path)
		if err == nil {
			key, derr := hex.DecodeString(strings.TrimSpace(string(raw)))
			if derr != nil || len(key) < 16 {
				return nil, fmt.Errorf("compaction: FileArchive key %q is malformed", path)
			}
			return key, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("compaction: FileArchive key: %w", err)
		}
		tmp, err := os.CreateTemp(dir, keyTempPrefix+"*")
		if err != nil {
			return nil, fmt.Errorf("compaction: FileArchive key: %w", err)
		}
		_, werr := tmp.WriteString(hex.EncodeToString(randomBytes(32)) + "\n")
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			err = os.Link(tmp.Name(), path)
		}
		os.Remove(tmp.Name())
		if werr != nil || cerr != nil {
			return nil, fmt.Errorf("compaction: FileArchive key: %w", errors.Join(werr, cerr))
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("compaction: FileArchive key: %w", err)
		}
	}
	return nil, fmt.Errorf("compaction: FileArchive key %q could not be made", path)
}

// archiveRecord is one entry as a line of the conversation's file.
type archiveRecord struct {
	At       int64             `json:"t"` // UnixNano
	Messages []*schema.Message `json:"m"`
}

// Put implements Archive.
func (a *FileArchive) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	if c, ok := strings.CutPrefix(conv, "cv"); !ok || !isHex(c, refConvBytes) {
		return "", fmt.Errorf("compaction: archiving: conversation %q is not a key from ArchiveConversation", clip(conv))
	}
	entry := hex.EncodeToString(randomBytes(refEntryBytes))
	payload, err := json.Marshal(archiveRecord{At: a.now().UnixNano(), Messages: messages})
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: encoding the messages: %w", err)
	}
	rec := encodeArchiveRecord(entry, payload)
	if int64(len(rec)) > a.maxBytes {
		return "", fmt.Errorf("compaction: archiving: the entry (%d bytes) is larger than the archive's MaxBytes (%d)", len(rec), a.maxBytes)
	}
	path := a.path(conv)
	if err := a.makeRoom(path, int64(len(rec))); err != nil {
		return "", fmt.Errorf("compaction: archiving: keeping the archive within its cap: %w", err)
	}
	release, err := a.gate(false)
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	err = appendLocked(path, rec)
	release()
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	return a.signer.issue(conv, entry), nil
}

// Get implements Archive.
func (a *FileArchive) Get(ctx context.Context, ref string) (string, []*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("compaction: recalling: %w", err)
	}
	conv, entry, err := a.signer.check(ref)
	if err != nil {
		return "", nil, err
	}
	raw, err := os.ReadFile(a.path(conv))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("%w: reference %q", ErrArchiveNotFound, ref)
	}
	if err != nil {
		return "", nil, fmt.Errorf("compaction: recalling %q: %w", ref, err)
	}
	var found *archiveRecord
	eachArchiveRecord(raw, entry, func(_ string, payload []byte) {
		var r archiveRecord
		if json.Unmarshal(payload, &r) == nil {
			found = &r
		}
	})
	if found == nil || a.now().Sub(time.Unix(0, found.At)) > a.ttl {
		return "", nil, fmt.Errorf("%w: reference %q", ErrArchiveNotFound, ref)
	}
	return conv, found.Messages, nil
}

// randomBytes returns n bytes from crypto/rand, which never fails.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func (a *FileArchive) path(conv string) string { return filepath.Join(a.dir, conv+archiveExt) }

// encodeArchiveRecord frames an entry as one line: "\n" CRC32 " " ID " "
// PAYLOAD "\n", the checksum covering "ID PAYLOAD". PAYLOAD is JSON, so it
// holds no raw line break; the ID up front lets a reader find an entry
// without decoding the others; the leading line break ends a torn record a
// crash left, so the record after it still reads.
func encodeArchiveRecord(id string, payload []byte) []byte {
	body := make([]byte, 0, len(id)+1+len(payload))
	body = append(append(append(body, id...), ' '), payload...)
	rec := make([]byte, 0, len(body)+11)
	rec = append(rec, '\n')
	rec = fmt.Appendf(rec, "%08x ", crc32.ChecksumIEEE(body))
	rec = append(rec, body...)
	return append(rec, '\n')
}

// eachArchiveRecord calls fn with the id and payload of every intact record
// in raw, oldest first, or only of those whose id is want when want is not
// empty; torn or corrupted lines are skipped.
func eachArchiveRecord(raw []byte, want string, fn func(id string, payload []byte)) {
	for line := range bytes.SplitSeq(raw, []byte{'\n'}) {
		if len(line) < 10 || line[8] != ' ' {
			continue
		}
		body := line[9:]
		id, payload, ok := bytes.Cut(body, []byte{' '})
		if !ok || (want != "" && string(id) != want) {
			continue
		}
		var sum [4]byte
		if _, err := hex.Decode(sum[:], line[:8]); err != nil {
			continue
		}
		if crc32.ChecksumIEEE(body) == uint32(sum[0])<<24|uint32(sum[1])<<16|uint32(sum[2])<<8|uint32(sum[3]) {
			fn(string(id), payload)
		}
	}
}

// openLocked opens path with flag and takes its exclusive lock. It returns
// a nil file, and no error, when path does not exist (without O_CREATE) or
// was replaced or removed between open and lock (eviction, trimming): the
// file at path is then someone else's. Closing the file releases the lock.
func openLocked(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	if !stillAt(f, path) {
		f.Close()
		return nil, nil
	}
	return f, nil
}

// appendLocked appends rec to path with one write under an exclusive lock.
// A file replaced or removed between open and lock (eviction, trimming) is
// opened again, so no record goes to an unlinked file.
func appendLocked(path string, rec []byte) error {
	for range 8 {
		f, err := openLocked(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
		if err != nil {
			return err
		}
		if f == nil {
			continue
		}
		n, err := f.Write(rec)
		cerr := f.Close() // releases the lock
		if err == nil && n != len(rec) {
			err = fmt.Errorf("short write: %d of %d bytes", n, len(rec))
		}
		return errors.Join(err, cerr)
	}
	return fmt.Errorf("%s kept being replaced while appending", path)
}

// stillAt reports whether the open file f is still the file at path.
func stillAt(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// archiveFile is one conversation's file as a sweep sees it.
type archiveFile struct {
	path string
	size int64
	mod  time.Time
}

// sweep removes the files whose newest entry is past the TTL, then, while
// the directory holds more than limit bytes, the least recently written
// files but current (the one about to be written), and finally trims
// current to its newest entries if the rest leaves it too little room.
// Every regular file counts: the key, and the temporary files of a trim,
// which are removed once staleTemp old (a crash left them).
func (a *FileArchive) sweep(current string, limit int64) error {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return err
	}
	var files []archiveFile
	var total int64
	now := a.now()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue // removed meanwhile, or not ours
		}
		f := archiveFile{path: filepath.Join(a.dir, e.Name()), size: info.Size(), mod: info.ModTime()}
		if !strings.HasSuffix(e.Name(), archiveExt) {
			if isTemp(e.Name()) && now.Sub(f.mod) > staleTemp {
				if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				continue
			}
			total += f.size
			continue
		}
		if now.Sub(f.mod) > a.ttl && f.path != current {
			if err := removeLocked(f.path); err != nil {
				return err
			}
			continue
		}
		files = append(files, f)
		total += f.size
	}
	slices.SortFunc(files, func(x, y archiveFile) int { return x.mod.Compare(y.mod) })
	for _, f := range files {
		if total <= limit {
			return nil
		}
		if f.path == current {
			continue
		}
		if err := removeLocked(f.path); err != nil {
			return err
		}
		total -= f.size
	}
	if total > limit {
		return a.trim(current, limit-(total-sizeOf(files, current)))
	}
	return nil
}

// staleTemp is the age past which a temporary file in the directory is a
// crash's leftover: a trim or a key's creation lasts milliseconds.
const staleTemp = time.Hour

// The prefixes of the directory's temporary files.
const (
	trimTempPrefix = ".trim-"
	keyTempPrefix  = ".key-"
)

func isTemp(name string) bool {
	return strings.HasPrefix(name, trimTempPrefix) || strings.HasPrefix(name, keyTempPrefix)
}

func sizeOf(files []archiveFile, path string) int64 {
	for _, f := range files {
		if f.path == path {
			return f.size
		}
	}
	return 0
}

// removeLocked removes path under its lock, so that no writer holding the
// lock appends to it as it goes.
func removeLocked(path string) error {
	f, err := openLocked(path, os.O_WRONLY)
	if err != nil || f == nil {
		return err
	}
	defer f.Close()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// trim rewrites path, under its lock, keeping its newest records that fit
// in budget bytes (and are within the TTL). The new file replaces the old
// by rename; writers waiting for the old one's lock notice and reopen.
func (a *FileArchive) trim(path string, budget int64) error {
	f, err := openLocked(path, os.O_RDONLY)
	if err != nil || f == nil {
		return err
	}
	defer f.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var recs [][]byte
	eachArchiveRecord(raw, "", func(id string, p []byte) { recs = append(recs, encodeArchiveRecord(id, p)) })
	var keep [][]byte
	var size int64
	for _, rec := range slices.Backward(recs) {
		if size+int64(len(rec)) > budget {
			break
		}
		keep = append(keep, rec)
		size += int64(len(rec))
	}
	slices.Reverse(keep)
	tmp, err := os.CreateTemp(a.dir, trimTempPrefix+"*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(bytes.Join(keep, nil))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
