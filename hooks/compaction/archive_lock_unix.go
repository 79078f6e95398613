//go:build unix

package compaction

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, held until f is closed: it orders
// the writers of one conversation's archive across processes.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
