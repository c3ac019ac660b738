package slab

import (
	"bytes"
	"testing"
	"unsafe"
)

func TestTakeGivesSeparateSlices(t *testing.T) {
	var s Slab[byte]
	var taken [][]byte
	for n := range 600 {
		b := s.Take(n % 37)
		if len(b) != n%37 || cap(b) != n%37 {
			t.Fatalf("Take(%d) gave len %d cap %d", n%37, len(b), cap(b))
		}
		for i := range b {
			b[i] = byte(n)
		}
		taken = append(taken, b)
	}
	for n, b := range taken {
		if want := bytes.Repeat([]byte{byte(n)}, n%37); !bytes.Equal(b, want) {
			t.Fatalf("slice %d was overwritten by a later Take: %v", n, b)
		}
	}
}

func TestResetReusesMemory(t *testing.T) {
	var s Slab[byte]
	first := s.Take(100)
	s.Reset()
	if again := s.Take(100); &again[0] != &first[0] {
		t.Fatal("Reset did not make the memory free for reuse")
	}
}

func TestResetDropsHugeChunks(t *testing.T) {
	var s Slab[byte]
	huge := s.Take(maxKeptBytes + 1)
	s.Reset()
	for _, c := range s.chunks {
		if unsafe.SliceData(c[:cap(c)]) == unsafe.SliceData(huge) {
			t.Fatal("Reset kept a chunk larger than maxKeptBytes")
		}
	}
}

func TestResetZeroesPointers(t *testing.T) {
	var s Slab[*int]
	p := s.Take(3)
	x := 1
	p[0], p[1], p[2] = &x, &x, &x
	s.Reset()
	for i, q := range s.Take(3) {
		if q != nil {
			t.Fatalf("item %d still points at what the last use stored", i)
		}
	}
}

func TestPoison(t *testing.T) {
	defer func() { Poison = false }()
	var s Slab[byte]
	b := s.Take(5)
	copy(b, "hello")
	Poison = true
	s.Reset()
	if !bytes.Equal(b, bytes.Repeat([]byte{0xA5}, 5)) {
		t.Fatalf("Reset with Poison left %q", b)
	}
}

func TestResetDropsLargeChunksTheLastUseDidNotNeed(t *testing.T) {
	var s Slab[byte]
	for range 10 {
		s.Take(100 << 10)
	}
	grown := len(s.chunks)
	s.Reset()
	s.Take(10)
	s.Reset()
	for _, c := range s.chunks {
		if cap(c) > maxIdleBytes {
			t.Fatalf("after a use of one small item, Reset kept a chunk of %d bytes", cap(c))
		}
	}
	if len(s.chunks) < 2 || len(s.chunks) == grown {
		t.Fatalf("kept %d of %d chunks: want the small ones only", len(s.chunks), grown)
	}
}
