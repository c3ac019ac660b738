//go:build !unix

package tap

func newBlockMemory(size int) (buf []byte, mapped bool) { return make([]byte, size), false }

func freeBlockMemory([]byte, bool) {}
