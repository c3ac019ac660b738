package conformance

import (
	"os"
	"syscall"
	"unsafe"
)

// unreadBytes is how many bytes wait in the pipe f to be read (FIONREAD).
func unreadBytes(f *os.File) (int64, bool) {
	conn, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int32
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil || errno != 0 {
		return 0, false
	}
	return int64(n), true
}
