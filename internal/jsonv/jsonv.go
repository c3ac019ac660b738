// Package jsonv parses one JSON text into a tree of values that remembers
// where each value sits in the input, keeps object members in wire order
// (duplicates included) and keeps number literals as written.
//
// encoding/json hides all three facts, and acplint needs each of them: byte
// positions for findings, duplicates and exact member names for lossless
// round trips, and number spelling because JSON-RPC ids 1 and 1.0 differ.
package jsonv

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"unsafe"

	"github.com/acplint/acplint/internal/slab"
)

// Kind is the JSON type of a value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is one parsed JSON value. It is 24 bytes with a single pointer,
// to the text of a string or number or to the items of an array or
// object: trees are built by the million, and their size and pointer count
// are most of what parsing and the collector spend on them. (Offsets of
// 32 bits, which limit the input to 4 GiB, made a member 40 bytes instead
// of 48: lint writes each tree once and reads it back, and with 64-bit
// offsets the trees were the most of its memory traffic after the lines.)
//
// Its four fields, the three numbers grouped as one, are what lets the
// compiler keep a Value in registers: a struct of more than four fields
// lives in memory, and each Value the parser passed on was written field
// by field and read back 16 bytes at a time, a load that the processor
// cannot forward from the narrower stores still in flight and waits for.
// That stall cost as much as the rest of building an object's members.
type Value struct {
	Kind Kind
	Bool bool
	span span
	// ptr is the first byte of the text (String, Number) or the first
	// element (Array, *Value) or member (Object, *Member).
	ptr unsafe.Pointer
}

// span is the numbers of a Value.
type span struct {
	n          uint32 // bytes of the text, or items of the array or object
	start, end uint32 // byte range of the value in the parsed input
}

// Start is the offset of v's first byte in the parsed input.
func (v *Value) Start() int { return int(v.span.start) }

// End is the offset of the byte after v in the parsed input.
func (v *Value) End() int { return int(v.span.end) }

// Str returns a string's decoded text, or a number's literal as written;
// "" for other kinds.
func (v *Value) Str() string {
	if v.Kind != String && v.Kind != Number {
		return ""
	}
	return unsafe.String((*byte)(v.ptr), v.span.n)
}

// Elems returns the elements of an array; nil for other kinds.
func (v *Value) Elems() []Value {
	if v.Kind != Array {
		return nil
	}
	return unsafe.Slice((*Value)(v.ptr), v.span.n)
}

// Members returns the members of an object in wire order; nil for other
// kinds.
func (v *Value) Members() []Member {
	if v.Kind != Object {
		return nil
	}
	return unsafe.Slice((*Member)(v.ptr), v.span.n)
}

// text returns a String or Number value for s.
func text(k Kind, start, end int, s string) Value {
	return Value{Kind: k, span: span{n: uint32(len(s)), start: uint32(start), end: uint32(end)}, ptr: unsafe.Pointer(unsafe.StringData(s))}
}

// Member is one object member.
type Member struct {
	Key   string
	Value Value
}

// Raw returns the bytes of v within src, the input it was parsed from.
func (v *Value) Raw(src []byte) []byte { return src[v.span.start:v.span.end] }

// Get returns the first member called key.
func (v *Value) Get(key string) (*Value, bool) {
	members := v.Members()
	for i := range members {
		if members[i].Key == key {
			return &members[i].Value, true
		}
	}
	return nil, false
}

// SyntaxError reports malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const MaxDepth = 10000

// errTooMany unwinds a parse that ran out of room; parse reports it as a
// *TooManyValuesError.
var errTooMany = &SyntaxError{Msg: "too many values"}

// maxScratch is the largest string-decoding buffer a parser keeps.
const maxScratch = 1 << 20

// maxLen bounds the input's length, a string's length and a container's
// item count, which a Value holds in 32 bits.
const maxLen = 1<<32 - 1

// Parse parses src, which must hold exactly one JSON value surrounded by
// optional white space.
func Parse(src []byte) (Value, error) {
	// One copy of the input as a string lets every string and number
	// without escapes be a substring of it, with no allocation of its own.
	return parse(src, string(src), nil, maxLen)
}

// ParseMax is Parse for input that may hold more values than its caller
// will hold the tree of: once the arrays and objects of src hold more than
// maxValues elements and members in all, it stops with a
// *TooManyValuesError. A tree takes 24 bytes an element and 40 a member,
// more than ten times the input when it is an array of one-digit numbers,
// so a bound on the input's length alone does not bound its tree.
func ParseMax(src []byte, maxValues int) (Value, error) {
	return parse(src, string(src), nil, maxValues)
}

// TooManyValuesError reports input whose arrays and objects hold more
// elements and members than the parse was allowed (ParseMax,
// Arena.SetMaxValues).
type TooManyValuesError struct {
	Offset int // where the first value past the limit ends
	Max    int
}

func (e *TooManyValuesError) Error() string {
	return fmt.Sprintf("offset %d: more than %d array elements and object members", e.Offset, e.Max)
}

// ParseOwned is Parse for input that nobody modifies afterwards: the
// strings of the tree share src's memory instead of a copy of it, which
// saves copying every line a second time. The tree keeps src alive.
func ParseOwned(src []byte) (Value, error) {
	return parse(src, unsafe.String(unsafe.SliceData(src), len(src)), nil, maxLen)
}

// ParseOwnedMax is ParseOwned with ParseMax's bound.
func ParseOwnedMax(src []byte, maxValues int) (Value, error) {
	return parse(src, unsafe.String(unsafe.SliceData(src), len(src)), nil, maxValues)
}

// parse parses src; text is src as a string. The tree is built in arena
// when it is not nil. Past maxValues elements and members it stops.
func parse(src []byte, text string, arena *Arena, maxValues int) (Value, error) {
	if uint64(len(src)) > maxLen {
		return Value{}, &SyntaxError{Msg: fmt.Sprintf("input longer than %d bytes", uint64(maxLen))}
	}
	// An arena parses line after line on one goroutine: its own parser
	// saves the pool's round trip per line.
	var p *parser
	if arena != nil {
		p = &arena.parser
	} else {
		p = parsers.Get().(*parser)
	}
	p.src, p.text, p.arena, p.room = src, text, arena, maxValues
	v, err := p.parseAll()
	if p.room < 0 {
		err = &TooManyValuesError{Offset: p.pos, Max: maxValues}
	}
	// Keep the stacks, but not one that a huge container grew, and
	// nothing the parse pointed to: a parser lives as long as its arena
	// or the pool, and would hold it for good (lines may be 64 MiB). The
	// stacks hold no pointers the collector sees (see rawMember), so they
	// need no clearing. Field by field: the parser built anew and copied
	// in went through a temporary and a barrier-checked copy.
	clear(p.keep)
	p.src, p.text, p.pos, p.arena = nil, "", 0, nil
	p.members, p.elems = p.memberSegs.reset(p.members), p.elemSegs.reset(p.elems)
	p.keep = keptStack(p.keep)
	p.scratch = p.scratch[:0]
	if arena == nil {
		parsers.Put(p)
	}
	return v, err
}

// parseAll parses p.src, which must hold one JSON value and white space.
func (p *parser) parseAll() (Value, error) {
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return Value{}, p.errf("unexpected %s after the JSON value", p.describe())
	}
	return v, nil
}

// maxKeptStack bounds the bytes of a stack a parser keeps between parses.
const maxKeptStack = 1 << 20

// keptStack returns stack emptied, or nil when it is larger than
// maxKeptStack.
func keptStack[T any](stack []T) []T {
	if uintptr(cap(stack))*unsafe.Sizeof(*new(T)) > maxKeptStack {
		return nil
	}
	return stack[:0]
}

// segmentedStack holds the full segments of a parser's stack below the
// one being filled. A stack grows by doubling only up to maxKeptStack
// bytes; past that it takes segments of that size. Doubling a stack that
// a huge container grows (a line of 1M numbers has a 24 MiB one) left all
// its earlier copies as garbage, which, the stack holding no pointers,
// the heap's growth before the next collection then held as resident
// memory (TestLintMemoryBounded/long_lines); segments are never copied,
// and the ones popped are reused for the next pushes.
type segmentedStack[T any] struct {
	full  [][]T // full segments, bottom first
	below int   // items in full
	spare [][]T // empty segments to fill next
}

// grow returns the stack's top segment, cur, with room for one more item:
// cur grown, or a new segment with cur pushed below it.
func (s *segmentedStack[T]) grow(cur []T) []T {
	segment := int(maxKeptStack / unsafe.Sizeof(*new(T)))
	if cap(cur) < segment {
		next := make([]T, len(cur), min(max(2*cap(cur), 64), segment))
		copy(next, cur)
		return next
	}
	s.full = append(s.full, cur)
	s.below += len(cur)
	if n := len(s.spare); n > 0 {
		next := s.spare[n-1]
		s.spare[n-1] = nil
		s.spare = s.spare[:n-1]
		return next
	}
	return make([]T, 0, cap(cur))
}

// pop copies the items from base (counted from the stack's bottom) up
// into dst, when base lies below the top segment cur, and returns the new
// top segment.
func (s *segmentedStack[T]) pop(cur []T, base int, dst []T) []T {
	i := len(s.full)
	for s.below > base {
		i--
		s.below -= len(s.full[i])
	}
	off := base - s.below
	k := copy(dst, s.full[i][off:])
	for _, segment := range s.full[i+1:] {
		k += copy(dst[k:], segment)
		s.spare = append(s.spare, segment[:0])
	}
	copy(dst[k:], cur)
	s.spare = append(s.spare, cur[:0])
	top := s.full[i][:off]
	clear(s.full[i:])
	s.full = s.full[:i]
	return top
}

// reset empties the stack whose top segment is cur and returns what a
// parser keeps of it for the next parse: its bottom segment, emptied, if
// it is no larger than maxKeptStack.
func (s *segmentedStack[T]) reset(cur []T) []T {
	if len(s.full) > 0 {
		cur = s.full[0]
	}
	*s = segmentedStack[T]{}
	return keptStack(cur)
}

// parsers keeps parsers, for their member and element stacks.
var parsers = sync.Pool{New: func() any { return new(parser) }}

type parser struct {
	src  []byte
	text string // src as a string
	pos  int
	// Members and elements of the objects and arrays being parsed, as
	// stacks: a container's items are collected on top and copied into a
	// slice of the exact size when it closes, so that no container costs a
	// growing slice.
	// Only their top segments are here: past maxKeptStack bytes, the
	// lower ones are in memberSegs and elemSegs.
	members    []rawMember
	elems      []rawValue
	memberSegs segmentedStack[rawMember]
	elemSegs   segmentedStack[rawValue]
	// arena, when set, provides the memory of closed containers; without
	// one each container gets a slice of its own, kept in keep until the
	// parse ends (see rawMember).
	arena *Arena
	keep  []unsafe.Pointer
	// scratch is where strings with escapes are decoded; it is kept up to
	// maxScratch bytes, so that one huge string is not held for ever.
	scratch []byte
	// room is how many more elements and members the parse may collect
	// (ParseMax); below zero, the parse stops.
	room int
}

// rawMember is a Member as the parser's stack holds it: the same bytes,
// with its two pointers as uintptrs, which the collector neither scans
// nor guards with write barriers. Pushing a member wrote two pointers,
// each checked for a barrier, and copying a closed object's members out
// of the stack was a barrier-checked copy; while the collector runs, as
// it often does under lint's memory limit, each then paid the barrier.
//
// Hiding the pointers is safe because everything they point to is kept
// alive by a pointer the collector does see, from before the raw copy is
// made until the tree holds a real pointer to it: the input, by p.src;
// in an arena, strings and containers, by the arena's chunk lists;
// without one, by p.keep. Nothing they point to can move either: the
// input and the arena escape to the heap (parse stores them through p),
// and the rest is allocated there.
//
// Closing a container copies its raw items into its memory as plain
// bytes too, without the barriers a store of a pointer into the heap
// has. It needs none: that memory holds zeros (fresh, or cleared by
// slab's Reset), so no old pointer goes unshaded, and each new one points
// to something reachable from p.src, an arena or p.keep, which lose it
// only through stores that have barriers, so the collector marks it in
// any cycle. The stacks never leave the parser, so nothing reads a stale
// raw pointer after the parse. TestTreesSurviveCollections catches a
// container or string that nothing kept alive.
type rawMember struct {
	key    uintptr
	keyLen int
	value  rawValue
}

// rawValue is Value as a rawMember holds it.
type rawValue struct {
	Kind Kind
	Bool bool
	span span
	ptr  uintptr
}

// raw returns v with its pointer hidden.
func raw(v Value) rawValue {
	return rawValue{Kind: v.Kind, Bool: v.Bool, span: v.span, ptr: uintptr(v.ptr)}
}

// rawMembers is members seen as rawMembers, to be written without
// barriers.
func rawMembers(members []Member) []rawMember {
	return unsafe.Slice((*rawMember)(unsafe.Pointer(unsafe.SliceData(members))), len(members))
}

// rawValues is values seen as rawValues, to be written without barriers.
func rawValues(values []Value) []rawValue {
	return unsafe.Slice((*rawValue)(unsafe.Pointer(unsafe.SliceData(values))), len(values))
}

// takeMembers returns a slice for the n members of an object that closes.
func (p *parser) takeMembers(n int) []Member {
	if p.arena == nil {
		members := make([]Member, n)
		p.keep = append(p.keep, unsafe.Pointer(unsafe.SliceData(members)))
		return members
	}
	return p.arena.members.Take(n)
}

// takeElems returns a slice for the n elements of an array that closes.
func (p *parser) takeElems(n int) []Value {
	if p.arena == nil {
		elems := make([]Value, n)
		p.keep = append(p.keep, unsafe.Pointer(unsafe.SliceData(elems)))
		return elems
	}
	return p.arena.elems.Take(n)
}

// Arena keeps the memory of parsed trees for reuse. The trees parsed in
// an arena, and the strings they decoded from escapes, stay valid until
// Reset, which lets later trees overwrite them; strings without escapes
// share the input's memory. Reading a transcript batch after batch, one
// arena makes parsing allocate nothing once it has grown to the largest
// batch's needs.
type Arena struct {
	parser  parser
	members slab.Slab[Member]
	elems   slab.Slab[Value]
	text    slab.Slab[byte] // strings decoded from escapes
	// maxValues bounds the elements and members of each parse, as
	// ParseMax's does; 0 means no bound.
	maxValues int
}

// SetMaxValues makes each later ParseNext stop, with a
// *TooManyValuesError, once the input's arrays and objects hold more than
// n elements and members in all (see ParseMax); n <= 0 removes the bound.
func (a *Arena) SetMaxValues(n int) { a.maxValues = max(n, 0) }

// ParseNext is the package's ParseOwned with the tree built in a, after
// the trees parsed since the last Reset.
func (a *Arena) ParseNext(src []byte) (Value, error) {
	n := a.maxValues
	if n == 0 {
		n = maxLen
	}
	return parse(src, unsafe.String(unsafe.SliceData(src), len(src)), a, n)
}

// Reset makes all of a's memory free for new trees; the trees parsed so
// far, and their decoded strings, become invalid.
func (a *Arena) Reset() {
	a.members.Reset()
	a.elems.Reset()
	a.text.Reset()
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) describe() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	c := p.src[p.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.Quote(string(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	// Compact JSON has no white space: one comparison says so, since
	// every white space character is at most ' '.
	if p.pos < len(p.src) && p.src[p.pos] > ' ' {
		return
	}
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// atByte skips white space and reports whether the next byte is c. It
// looks at the next byte before it skips: in compact JSON, where there is
// no space to skip, that is one test where skipSpace and a test of c made
// two, at each of the three places in every object member that call it.
func (p *parser) atByte(c byte) bool {
	if p.pos < len(p.src) && p.src[p.pos] == c {
		return true
	}
	p.skipSpace()
	return p.pos < len(p.src) && p.src[p.pos] == c
}

func (p *parser) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.errf("nesting deeper than %d levels", MaxDepth)
	}
	if p.pos >= len(p.src) {
		return Value{}, p.errf("unexpected end of input, want a JSON value")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if uint64(len(s)) > maxLen {
			return Value{}, p.errf("string longer than %d bytes", maxLen)
		}
		return text(String, start, p.pos, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return Value{}, err
		}
		if uint64(p.pos-start) > maxLen {
			return Value{}, p.errf("number longer than %d bytes", maxLen)
		}
		return text(Number, start, p.pos, p.text[start:p.pos]), nil
	case c == 't':
		if err := p.literal("true"); err != nil {
			return Value{}, err
		}
		return Value{Kind: Bool, Bool: true, span: span{start: uint32(start), end: uint32(p.pos)}}, nil
	case c == 'f':
		if err := p.literal("false"); err != nil {
			return Value{}, err
		}
		return Value{Kind: Bool, span: span{start: uint32(start), end: uint32(p.pos)}}, nil
	case c == 'n':
		if err := p.literal("null"); err != nil {
			return Value{}, err
		}
		return Value{Kind: Null, span: span{start: uint32(start), end: uint32(p.pos)}}, nil
	}
	return Value{}, p.errf("unexpected %s, want a JSON value", p.describe())
}

func (p *parser) literal(word string) error {
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return p.errf("invalid literal, want %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	v := Value{Kind: Object, span: span{start: uint32(p.pos)}}
	p.pos++ // '{'
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		v.span.end = uint32(p.pos)
		return v, nil
	}
	base := p.memberSegs.below + len(p.members)
	for {
		if !p.atByte('"') {
			return Value{}, p.errf("unexpected %s, want a member name string", p.describe())
		}
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if !p.atByte(':') {
			return Value{}, p.errf("unexpected %s after member name %q, want ':'", p.describe(), key)
		}
		p.pos++
		var mv Value
		if p.atByte('"') && depth < MaxDepth {
			// Most values are strings: parsed here, they save a call of
			// value and the copies of its result.
			start := p.pos
			str, err := p.str()
			if err != nil {
				return Value{}, err
			}
			if uint64(len(str)) > maxLen {
				return Value{}, p.errf("string longer than %d bytes", maxLen)
			}
			mv = text(String, start, p.pos, str)
		} else if mv, err = p.value(depth + 1); err != nil {
			return Value{}, err
		}
		// Written in place, field by field: a Member is too large for
		// registers, and one built first and then copied into the stack
		// was read back 16 bytes at a time right after its narrower
		// stores, the stall that Value's four fields avoid.
		if len(p.members) == cap(p.members) {
			p.members = p.memberSegs.grow(p.members)
		}
		p.members = p.members[:len(p.members)+1]
		m := &p.members[len(p.members)-1]
		m.key, m.keyLen, m.value = uintptr(unsafe.Pointer(unsafe.StringData(key))), len(key), raw(mv)
		if p.room--; p.room < 0 {
			return Value{}, errTooMany
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return Value{}, p.errf("unexpected end of input inside an object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.span.end = uint32(p.pos)
			n := p.memberSegs.below + len(p.members) - base
			if uint64(n) > maxLen {
				return Value{}, p.errf("object with more than %d members", maxLen)
			}
			members := p.takeMembers(n)
			if top := base - p.memberSegs.below; top >= 0 {
				copy(rawMembers(members), p.members[top:])
				p.members = p.members[:top]
			} else {
				p.members = p.memberSegs.pop(p.members, base, rawMembers(members))
			}
			v.span.n, v.ptr = uint32(n), unsafe.Pointer(unsafe.SliceData(members))
			return v, nil
		default:
			return Value{}, p.errf("unexpected %s inside an object, want ',' or '}'", p.describe())
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	v := Value{Kind: Array, span: span{start: uint32(p.pos)}}
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		v.span.end = uint32(p.pos)
		return v, nil
	}
	base := p.elemSegs.below + len(p.elems)
	for {
		p.skipSpace()
		ev, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if len(p.elems) == cap(p.elems) {
			p.elems = p.elemSegs.grow(p.elems)
		}
		p.elems = append(p.elems, raw(ev))
		if p.room--; p.room < 0 {
			return Value{}, errTooMany
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return Value{}, p.errf("unexpected end of input inside an array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.span.end = uint32(p.pos)
			n := p.elemSegs.below + len(p.elems) - base
			if uint64(n) > maxLen {
				return Value{}, p.errf("array with more than %d elements", maxLen)
			}
			elems := p.takeElems(n)
			if top := base - p.elemSegs.below; top >= 0 {
				copy(rawValues(elems), p.elems[top:])
				p.elems = p.elems[:top]
			} else {
				p.elems = p.elemSegs.pop(p.elems, base, rawValues(elems))
			}
			v.span.n, v.ptr = uint32(n), unsafe.Pointer(unsafe.SliceData(elems))
			return v, nil
		default:
			return Value{}, p.errf("unexpected %s inside an array, want ',' or ']'", p.describe())
		}
	}
}

func (p *parser) number() error {
	i := p.pos
	if p.src[i] == '-' {
		i++
	}
	switch {
	case i < len(p.src) && p.src[i] == '0':
		i++
	case i < len(p.src) && p.src[i] >= '1' && p.src[i] <= '9':
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.errf("invalid number: want a digit")
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		d := i
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
		}
		if i == d {
			p.pos = i
			return p.errf("invalid number: want a digit after '.'")
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		d := i
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
		}
		if i == d {
			p.pos = i
			return p.errf("invalid number: want a digit in the exponent")
		}
	}
	p.pos = i
	return nil
}

// str parses a string starting at the opening quote and returns its text.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	esc := -1
	if i := p.nextSpecial(start); i < len(p.src) {
		c := p.src[i]
		if c == '"' {
			p.pos = i + 1
			return p.text[start:i], nil
		}
		if c != '\\' {
			p.pos = i
			return "", p.errf("control character 0x%02x in a string (must be escaped)", c)
		}
		esc = i
	}
	// Decode into the parser's scratch buffer, then copy the result into
	// memory of its exact size: one pass over the string, where finding
	// its end first to size the result took two.
	if esc < 0 {
		p.pos = len(p.src)
		return "", p.errf("unexpected end of input inside a string")
	}
	buf, end, err := unescape(append(p.scratch[:0], p.src[start:esc]...), p.src, esc)
	if err != nil {
		p.pos = err.Offset
		return "", err
	}
	p.pos = end + 1
	if cap(buf) <= maxScratch {
		p.scratch = buf
	}
	return p.keepString(buf), nil
}

// keepString returns a copy of the decoded string in buf, in the arena
// when there is one.
func (p *parser) keepString(buf []byte) string {
	var dst []byte
	if p.arena == nil {
		dst = make([]byte, len(buf))
		p.keep = append(p.keep, unsafe.Pointer(unsafe.SliceData(dst)))
	} else {
		dst = p.arena.text.Take(len(buf))
	}
	copy(dst, buf)
	return unsafe.String(unsafe.SliceData(dst), len(dst))
}

// nextSpecial returns the index of the first quote, backslash or control
// character from i on, or len(p.src): eight bytes at a time, the byte
// found from the word's mask, then byte by byte for the last few bytes of
// the input.
func (p *parser) nextSpecial(i int) int {
	// Words are read from a shrinking slice, not at an index, so that the
	// compiler sees each read in bounds: its checks were an eighth of the
	// instructions of this loop, the hottest of parsing.
	rest := p.src[i:]
	for len(rest) >= 16 {
		if m := specialMask(binary.LittleEndian.Uint64(rest)); m != 0 {
			return len(p.src) - len(rest) + bits.TrailingZeros64(m)>>3
		}
		if m := specialMask(binary.LittleEndian.Uint64(rest[8:])); m != 0 {
			return len(p.src) - len(rest) + 8 + bits.TrailingZeros64(m)>>3
		}
		rest = rest[16:]
	}
	for len(rest) >= 8 {
		if m := specialMask(binary.LittleEndian.Uint64(rest)); m != 0 {
			return len(p.src) - len(rest) + bits.TrailingZeros64(m)>>3
		}
		rest = rest[8:]
	}
	for j, c := range rest {
		if c == '"' || c == '\\' || c < 0x20 {
			return len(p.src) - len(rest) + j
		}
	}
	return len(p.src)
}

// specialMask marks (with the high bit of each byte) the bytes of w that
// (may) end a run of plain string bytes: a quote, a backslash or a control
// character. It may mark other bytes after a byte that is special, never
// miss one; the lowest mark is exact, the first special byte, since
// borrows only run upwards.
//
// Each of the three tests is "x-ones (or w-0x20s) with x's high bit
// clear", x being w with quotes or backslashes turned to zero bytes; an
// exclusive or with those two leaves the high bits alone, so one &^ w
// serves all three, four instructions fewer in the parser's hottest loop.
func specialMask(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote - ones) | (backslash - ones) | (w - ones*0x20)) &^ w & highs
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
