package codec

import "unsafe"

// Nearly every line of a session's traffic is a session/update whose
// update (a SessionUpdate) holds a ContentBlock. Go boxes each arm of such
// a union in an allocation of its own, which was half of the bytes lint
// allocated. A BatchDecoder instead keeps the arms of these unions in
// pools (genArms, generated) whose memory the next batch reuses, like
// everything else it decodes; a value that is kept past the batch is
// detached (domain.Detach copies what an interface holds).

// armPool holds the arms of one type decoded since the last reset.
type armPool[T any] struct {
	arms []T
	used int
}

// take stores v in the pool and returns where. When the pool is full it
// starts a larger array: the values already taken stay where they are,
// in the old one, which lives as long as they are referred to.
func (p *armPool[T]) take(v T) *T {
	if p.used == len(p.arms) {
		p.arms = make([]T, max(8, 2*len(p.arms)))
		p.used = 0
	}
	a := &p.arms[p.used]
	*a = v
	p.used++
	return a
}

// maxKeptArms bounds, in bytes, the array a pool keeps for the next
// batch: one line holding a JSON-RPC batch of a million updates must not
// leave a pool that size behind it.
const maxKeptArms = 256 << 10

// reset empties the pool for the next batch; the arms taken become
// invalid. They are cleared so that they keep no text alive.
func (p *armPool[T]) reset() {
	if uintptr(len(p.arms))*unsafe.Sizeof(*new(T)) > maxKeptArms {
		p.arms = nil
	} else {
		clear(p.arms[:p.used])
	}
	p.used = 0
}

// pooled returns the pools of d's batch, or nil for DecodeLine.
func (d *decoder) pooled() *genArms { return d.arms }

// iface is the layout of a Go interface value with methods (and of an
// empty interface, whose first word is its type).
type iface struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}

// ifaceTab returns the first word of an interface I holding a T, which
// boxArm needs to make one from a pointer to a T.
func ifaceTab[I any, T any]() unsafe.Pointer {
	var zero T
	i, _ := any(zero).(I)
	return (*iface)(unsafe.Pointer(&i)).tab
}

// boxArm sets *out, an interface I, to the T at p, without copying it:
// the interface holds p itself, as Go's own boxing holds the copy it
// allocates. tab is ifaceTab[I, T](). Nothing may change *p while out
// holds it.
func boxArm[I any, T any](out *I, tab unsafe.Pointer, p *T) {
	i := (*iface)(unsafe.Pointer(out))
	i.tab, i.data = tab, unsafe.Pointer(p)
}

// slicePool holds the arrays of the slices of one type decoded since the
// last reset, cut from larger arrays: a plan's entries or a tool call's
// content cost no allocation of their own.
type slicePool[T any] struct {
	buf  []T
	used int
}

// take returns a zeroed slice of n elements whose capacity is n, so that
// appending to it never writes into the pool.
func (p *slicePool[T]) take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > len(p.buf)-p.used {
		p.buf = make([]T, max(16, 2*len(p.buf), n))
		p.used = 0
	}
	s := p.buf[p.used : p.used+n : p.used+n]
	p.used += n
	return s
}

// reset empties the pool for the next batch, as armPool.reset does.
func (p *slicePool[T]) reset() {
	if uintptr(len(p.buf))*unsafe.Sizeof(*new(T)) > maxKeptArms {
		p.buf = nil
	} else {
		clear(p.buf[:p.used])
	}
	p.used = 0
}
