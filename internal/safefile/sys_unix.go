//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// isLinkError reports whether opening with O_NOFOLLOW failed because the
// final path component is a symbolic link.
func isLinkError(err error) bool { return errors.Is(err, syscall.ELOOP) }

// lock takes an advisory exclusive lock on f without waiting for it.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrInUse
		default:
			return err
		}
	}
}
