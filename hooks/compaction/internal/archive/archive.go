// Package archive stores replaced messages in files (records, locking,
// expiry, size cap), signs the references summaries carry and reads
// entries back for the agent (the recall tool).
//
// A File keeps one append-only file of checksummed records per
// conversation, under flock so that processes sharing the directory never
// interleave, expires entries past a TTL and keeps the directory within a
// byte cap. A Signer issues and checks the references that name an entry:
// the conversation, the entry and an HMAC only the archive's key makes.
// Recall is the recall tool: it renders an entry's messages as the
// transcript does and pages them. Redacting rewrites the texts of what it
// archives.
//
// It uses the message, render and summary packages under
// hooks/compaction; compaction's FileArchive, ArchiveRefs, RedactArchive
// and NewRecallTool call it, and so does the hook's engine.
package archive

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
)

// Defaults of a File (compaction.DefaultArchiveTTL and
// DefaultArchiveMaxBytes).
const (
	// DefaultTTL is how long a File keeps an entry.
	DefaultTTL = 24 * time.Hour
	// DefaultMaxBytes bounds a File's directory.
	DefaultMaxBytes = 256 << 20
)

// Config sets a File's limits; a zero field takes its default.
type Config struct {
	// TTL is how long entries are kept; 0 is DefaultTTL.
	TTL time.Duration
	// MaxBytes bounds the directory's size; 0 is DefaultMaxBytes.
	MaxBytes int64
	// Now replaces the clock, for tests of the TTL; nil is time.Now.
	Now func() time.Time
}

// File is an archive in a directory: one append-only file per conversation
// ("CONV.arc"), and the key that signs references ("archive.key", made
// once, by whichever process comes first); compaction.FileArchive's godoc
// says what it guarantees.
type File struct {
	dir      string
	ttl      time.Duration
	maxBytes int64
	signer   *Signer
	now      func() time.Time

	mu      sync.Mutex
	written int64 // bytes this process wrote or is writing since its last sweep

	sweeping sync.Mutex // one sweep of this process at a time (makeRoom)
}

const (
	fileExt     = ".arc"
	keyFileName = "archive.key"
)

// Open returns a File in dir with c's limits, creating dir (0700) and its
// key when missing. Errors name the bad setting and its value.
func (c Config) Open(dir string) (*File, error) {
	if dir == "" {
		return nil, errors.New("compaction: NewFileArchive needs a directory, got \"\"")
	}
	if c.TTL < 0 {
		return nil, fmt.Errorf("compaction: FileArchive TTL must be positive (or 0: default %v), got %v", DefaultTTL, c.TTL)
	}
	if c.MaxBytes < 0 {
		return nil, fmt.Errorf("compaction: FileArchive MaxBytes must be positive (or 0: default %d), got %d", DefaultMaxBytes, c.MaxBytes)
	}
	a := &File{dir: dir, ttl: c.TTL, maxBytes: c.MaxBytes, now: c.Now}
	if a.ttl == 0 {
		a.ttl = DefaultTTL
	}
	if a.maxBytes == 0 {
		a.maxBytes = DefaultMaxBytes
	}
	if a.now == nil {
		a.now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("compaction: FileArchive directory %q: %w", dir, err)
	}
	key, err := loadKey(dir)
	if err != nil {
		return nil, err
	}
	a.signer = &Signer{key: key}
	return a, nil
}

// loadKey reads the directory's signing key, making it first if needed.
// The key is written to a temporary file and linked into place, so two
// processes starting together agree on one key and neither reads a partial
// one.
func loadKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, keyFileName)
	for range 3 {
		raw, err := os.ReadFile(path)
		if err == nil {
			key, derr := hex.DecodeString(strings.TrimSpace(string(raw)))
			if derr != nil || len(key) < MinKeyBytes {
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

// Put archives messages under conversation conv (a key from Conversation)
// and returns the reference that reads them back.
func (a *File) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("compaction: archiving: %w", err)
	}
	ref, entry, err := a.signer.Issue(conv)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(record{At: a.now().UnixNano(), Messages: messages})
	if err != nil {
		return "", fmt.Errorf("compaction: archiving: encoding the messages: %w", err)
	}
	rec := encodeRecord(entry, payload)
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
	return ref, nil
}

// Get returns the conversation ref was issued for and the messages
// archived under it. A reference the archive did not issue returns an
// error wrapping ErrReference; an entry expired or evicted, one wrapping
// ErrNotFound.
func (a *File) Get(ctx context.Context, ref string) (string, []*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("compaction: recalling: %w", err)
	}
	conv, entry, err := a.signer.Check(ref)
	if err != nil {
		return "", nil, err
	}
	raw, err := os.ReadFile(a.path(conv))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("%w: reference %q", ErrNotFound, ref)
	}
	if err != nil {
		return "", nil, fmt.Errorf("compaction: recalling %q: %w", ref, err)
	}
	var found *record
	eachRecord(raw, entry, func(_ string, payload []byte) {
		var r record
		if json.Unmarshal(payload, &r) == nil {
			found = &r
		}
	})
	if found == nil || a.now().Sub(time.Unix(0, found.At)) > a.ttl {
		return "", nil, fmt.Errorf("%w: reference %q", ErrNotFound, ref)
	}
	return conv, found.Messages, nil
}

func (a *File) path(conv string) string { return filepath.Join(a.dir, conv+fileExt) }
