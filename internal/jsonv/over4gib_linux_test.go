package jsonv

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestInputOver4GiB: offsets are 32 bits, so a longer input is refused
// rather than parsed into wrong offsets. The input is address space
// reserved, not memory: the parser must refuse it before reading a byte,
// and a slice made up over a short allocation instead would break the
// pointer checks of race builds (checkptr).
func TestInputOver4GiB(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("a slice cannot be longer than 4 GiB here")
	}
	size := uint64(maxLen)
	huge, err := syscall.Mmap(-1, 0, int(size+1), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Skipf("SKIPPED LOUDLY: cannot reserve %d bytes of address space: %v", size+1, err)
	}
	defer syscall.Munmap(huge)
	if _, err := ParseOwned(huge); err == nil || !strings.Contains(err.Error(), "input longer than") {
		t.Errorf("ParseOwned of %d bytes: %v, want an error", len(huge), err)
	}
}
