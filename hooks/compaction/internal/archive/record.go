package archive

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"

	"github.com/cloudwego/eino/schema"
)

// record is one entry as a line of the conversation's file.
type record struct {
	At       int64             `json:"t"` // UnixNano
	Messages []*schema.Message `json:"m"`
}

// encodeRecord frames an entry as one line: "\n" CRC32 " " ID " " PAYLOAD
// "\n", the checksum covering "ID PAYLOAD". PAYLOAD is JSON, so it holds no
// raw line break; the ID up front lets a reader find an entry without
// decoding the others; the leading line break ends a torn record a crash
// left, so the record after it still reads.
func encodeRecord(id string, payload []byte) []byte {
	body := make([]byte, 0, len(id)+1+len(payload))
	body = append(append(append(body, id...), ' '), payload...)
	rec := make([]byte, 0, len(body)+11)
	rec = append(rec, '\n')
	rec = fmt.Appendf(rec, "%08x ", crc32.ChecksumIEEE(body))
	rec = append(rec, body...)
	return append(rec, '\n')
}

// eachRecord calls fn with the id and payload of every intact record in
// raw, oldest first, or only of those whose id is want when want is not
// empty; torn or corrupted lines are skipped.
func eachRecord(raw []byte, want string, fn func(id string, payload []byte)) {
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
