package tap

import "syscall"

// newBlockMemory maps size bytes outside the Go heap, so that a block the
// pool does not keep goes back to the system the moment it is let go: on
// the heap, blocks an observer that fell behind had held stayed as
// garbage until the collector came, up to four times what the queues may
// hold (GOGC=400), on top of it. The pages are populated by the mapping,
// in one call, rather than by a fault each as the pump first reads into
// them. mapped says whether freeBlockMemory must unmap it.
func newBlockMemory(size int) (buf []byte, mapped bool) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return make([]byte, size), false
	}
	return b, true
}

func freeBlockMemory(buf []byte, mapped bool) {
	if mapped {
		syscall.Munmap(buf)
	}
}
