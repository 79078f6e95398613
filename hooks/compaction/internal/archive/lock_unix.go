//go:build unix

package archive

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, held until f is closed: it orders
// the writers of one conversation's archive across processes.
func lockFile(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// lockFileShared takes a shared flock on f, held until f is closed.
func lockFileShared(f *os.File) error { return flock(f, syscall.LOCK_SH) }

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
