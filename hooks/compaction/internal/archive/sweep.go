package archive

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gateFile is the directory's gate: every write holds it shared, every
// sweep exclusive, across processes and goroutines (each holder opens it
// anew, and flock locks of separate opens exclude each other even within
// one process). A sweep thus sees the directory as it is, with no write
// landing after it counted the files: a sweep that ran alongside writes
// missed them, and with several processes writing the directory went past
// its cap by more than their sixteenths.
const gateFile = "archive.lock"

// gate opens the directory's gate and locks it, shared or exclusive; the
// returned function releases it.
func (a *File) gate(exclusive bool) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(a.dir, gateFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	lock := lockFileShared
	if exclusive {
		lock = lockFile
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// makeRoom counts n bytes about to be written to current against this
// process's share of the cap, a sixteenth of it, and sweeps first when the
// share is used up, down to the cap less a sixteenth (or less n, if
// larger). One writing process thus keeps the directory within its cap,
// and each further one may take it a sixteenth past it. The count is
// reset only once the sweep is done: reset when it was decided, the
// process's other writers went on writing while the sweep waited for the
// gate, and the directory passed its cap by a sixteenth per writer.
func (a *File) makeRoom(current string, n int64) error {
	slice := a.maxBytes / 16
	if a.reserve(n, slice) {
		return nil
	}
	a.sweeping.Lock()
	defer a.sweeping.Unlock()
	if a.reserve(n, slice) { // another writer of this process swept
		return nil
	}
	release, err := a.gate(true)
	if err != nil {
		return err
	}
	defer release()
	if err := a.sweep(current, a.maxBytes-max(slice, n)); err != nil {
		return err
	}
	a.mu.Lock()
	a.written = n
	a.mu.Unlock()
	return nil
}

// reserve counts n bytes in this process's share of the cap if they fit.
func (a *File) reserve(n, slice int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.written+n > slice {
		return false
	}
	a.written += n
	return true
}

// dirFile is one file of the directory as a sweep sees it.
type dirFile struct {
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
func (a *File) sweep(current string, limit int64) error {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return err
	}
	var files []dirFile
	var total int64
	now := a.now()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue // removed meanwhile, or not ours
		}
		f := dirFile{path: filepath.Join(a.dir, e.Name()), size: info.Size(), mod: info.ModTime()}
		if !strings.HasSuffix(e.Name(), fileExt) {
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
	slices.SortFunc(files, func(x, y dirFile) int { return x.mod.Compare(y.mod) })
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

func sizeOf(files []dirFile, path string) int64 {
	for _, f := range files {
		if f.path == path {
			return f.size
		}
	}
	return 0
}

// trim rewrites path, under its lock, keeping its newest records that fit
// in budget bytes (and are within the TTL). The new file replaces the old
// by rename; writers waiting for the old one's lock notice and reopen.
func (a *File) trim(path string, budget int64) error {
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
	eachRecord(raw, "", func(id string, p []byte) { recs = append(recs, encodeRecord(id, p)) })
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
