// Package slab hands out slices carved from a few large chunks and takes
// them all back at once, so that memory a program needs batch after batch
// (parse trees, lines, decoded strings) is allocated once instead of once
// per use. What a slab handed out is valid until its next Reset; whoever
// keeps something longer must copy it.
package slab

import "unsafe"

// Slab is a list of chunks that slices are carved from. The zero value is
// empty and ready to use.
type Slab[T any] struct {
	chunks [][]T
	cur    int // the chunk being filled
}

// firstChunk is the size of a first chunk, in items; later ones double.
const firstChunk = 256

// maxKeptBytes bounds the chunks Reset keeps: a chunk grown for one huge
// item (a 50 MB line) is left to the collector rather than held for ever.
// maxIdleBytes bounds the chunks it keeps that the last use did not need.
const (
	maxKeptBytes = 4 << 20
	maxIdleBytes = 256 << 10
)

// Poison makes Reset overwrite the bytes it takes back, so that a test can
// catch memory kept past Reset: a string that still points into a byte
// slab reads as 0xA5 bytes. Slabs of other types are zeroed either way.
var Poison = false

// Take returns n items, with the capacity cut so that an append cannot
// reach a neighbour. The items are zero, except bytes, which hold
// whatever their last use left (see Reset).
func (s *Slab[T]) Take(n int) []T {
	for s.cur < len(s.chunks) {
		c := s.chunks[s.cur]
		if i := len(c); cap(c)-i >= n {
			s.chunks[s.cur] = c[:i+n]
			return c[i : i+n : i+n]
		}
		if s.cur+1 == len(s.chunks) {
			break
		}
		s.cur++
	}
	size := firstChunk
	if k := len(s.chunks); k > 0 {
		size = 2 * cap(s.chunks[k-1])
	}
	s.chunks = append(s.chunks, make([]T, n, max(n, size)))
	s.cur = len(s.chunks) - 1
	return s.chunks[s.cur][:n:n]
}

// Reset takes back every slice handed out. Items are zeroed, so that the
// slab holds on to nothing the old slices referred to, except bytes,
// which are left as they are (unless Poison is set): zeroing them would
// cost a pass over memory for nothing.
//
// Reset lets the collector have the large chunks that the last use did
// not need, so that one unusually large use (a batch of long lines) does
// not hold its memory for ever, while uses that vary a little in size do
// not allocate their chunks again and again.
func (s *Slab[T]) Reset() {
	kept := s.chunks[:0]
	for i, c := range s.chunks {
		bytes := uintptr(cap(c)) * unsafe.Sizeof(*new(T))
		if i > s.cur {
			if bytes <= maxIdleBytes {
				kept = append(kept, c)
			}
			continue
		}
		if b, isBytes := any(c).([]byte); !isBytes {
			clear(c)
		} else if Poison {
			for j := range b {
				b[j] = 0xA5
			}
		}
		if bytes <= maxKeptBytes {
			kept = append(kept, c[:0])
		}
	}
	clear(s.chunks[len(kept):])
	s.chunks = kept
	s.cur = 0
}
