package compaction

import (
	"os"
	"path/filepath"
)

// archiveGateFile is the FileArchive directory's gate: every write holds it
// shared, every sweep exclusive, across processes and goroutines (each
// holder opens it anew, and flock locks of separate opens exclude each
// other even within one process). A sweep thus sees the directory as it
// is, with no write landing after it counted the files: a sweep that ran
// alongside writes missed them, and with several processes writing the
// directory went past its cap by more than their sixteenths.
const archiveGateFile = "archive.lock"

// gate opens the directory's gate and locks it, shared or exclusive; the
// returned function releases it.
func (a *FileArchive) gate(exclusive bool) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(a.dir, archiveGateFile), os.O_RDWR|os.O_CREATE, 0o600)
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
func (a *FileArchive) makeRoom(current string, n int64) error {
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
func (a *FileArchive) reserve(n, slice int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.written+n > slice {
		return false
	}
	a.written += n
	return true
}
