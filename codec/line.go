// Package codec turns transcript bytes into typed ACP messages and back.
//
// Decoding is strict and lossless: member names match case-sensitively,
// members a type does not declare and every "_meta" are kept verbatim, and
// each problem is reported with a JSON Pointer instead of stopping the
// decode. Encoding a decoded message gives JSON equal to the input, member
// order and white space aside.
//
// The codec follows the conventions documented in package domain: inline
// unions (whose discriminator and members sit in the enclosing object),
// array-shaped unions told apart by their first element, verbatim types
// (RequestID, ElicitationContentValue) kept exactly as written, and
// optional members that must not be null (reported, but kept as null).
//
// Generated decoders. The params and results of the methods, and what
// they contain, decode through code generated from the same plans the
// reflective decoder follows (decode_gen.go, written by decodegen_test.go):
// it unrolls the decoder's loops and switches for each type, which takes
// about 40% off the cost of typing a message. Tests and the fuzz target
// hold the two decoders to the same results on every input.
//
// Numbers. JSON kept raw (ids, "_meta", unknown members, rawInput, form
// answers) keeps its spelling, so 1.0, 1e2 and 2^64 survive unchanged.
// Typed members hold Go numbers: an integer member accepts a whole number
// written 1.0 or 1e2 (JSON Schema calls it an integer) and re-encodes it
// as 1 or 100; a value outside the member's range (70000 for the uint16
// protocolVersion) is a ProbRange problem, never a wrapped value; a float
// member re-encodes as the shortest text of the same double.
package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Line is one newline-terminated line of a transcript.
type Line struct {
	Num    int    // 1-based line number
	Offset int64  // byte offset of the line's first byte in the input
	Bytes  []byte // the line without its "\n" or "\r\n" terminator
	// CRLF is set when the line ended in "\r\n".
	CRLF bool
	// Unterminated is set for a last line with no final newline.
	Unterminated bool
	// TooLong, when set, is the length of a line longer than the reader's
	// maximum (SetMaxLine), terminator excluded. The reader streamed past
	// it without keeping it: Bytes is empty.
	TooLong int64
}

// DefaultMaxLine is the longest line acplint keeps unless told otherwise,
// in every command that reads lines (lint, fmt, tap, check): twice the
// largest message the TypeScript SDK accepts (ACP-WIRE-008), so every
// message a peer could take is checked, while an endless line (acplint lint
// /dev/zero) cannot exhaust memory.
const DefaultMaxLine = 64 << 20

// BytesPerValue and MinMaxValues set MaxValues.
const (
	BytesPerValue = 32
	MinMaxValues  = 1 << 20
)

// MaxValues is the most JSON values (array elements and object members)
// acplint parses of one line when lines are at most maxLine bytes long
// (0 means DefaultMaxLine): one per BytesPerValue bytes of maxLine, and
// at least MinMaxValues. A line's parse tree takes 24 bytes an element
// and 40 a member, and more again while the parser collects a container's
// items, so a line of one-digit numbers (two bytes a value) would need
// some thirty times its length; with the bound, parsing a line takes at
// most about twice maxLine (50-100 MiB below a maxLine of 32 MiB, where
// MinMaxValues rules). ACP messages hold a value per 10-20 bytes of
// their text, so only a line of a third of maxLine or more can reach the
// bound, and only when its values are denser than a message's.
func MaxValues(maxLine int) int {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return max(maxLine/BytesPerValue, MinMaxValues)
}

// TooManyValues is the detail of the problem (ProbTooManyValues) of a line
// whose JSON values number more than max (MaxValues).
func TooManyValues(max int) string {
	return fmt.Sprintf("the line holds more than %d JSON values (array elements and object members), more than acplint parses of one line (one per %d bytes of --max-line, at least %d; --max-line raises it): it was skipped unchecked, and findings after it may be wrong", max, BytesPerValue, MinMaxValues)
}

// LineReader reads lines of any length up to a maximum (none unless
// SetMaxLine says): a 50 MB message is one line, and no line is ever split.
// A line over the maximum is not dropped silently either: it comes back
// with TooLong set and no bytes, so its number and offset stay right and the
// lines after it are read as usual. (bufio.Scanner would stop at 64 KiB.)
type LineReader struct {
	r      *bufio.Reader
	num    int
	offset int64
	// alloc, when set, provides the memory of each line (SetAlloc); long
	// gathers the pieces of a line longer than r's buffer, and keeps their
	// memory for the next such line unless they were many.
	alloc func(n int) []byte
	long  [][]byte
	// max is the longest line kept, terminator excluded; 0 means no limit.
	max int
	// passLong, when set, receives the bytes of each line over max as the
	// reader streams past them (SetPassLong).
	passLong io.Writer
	// tail holds the last two bytes read of the current line, which say
	// how it ends.
	tail [2]byte
}

// SetMaxLine makes Next skip any line longer than n bytes (its terminator
// not counted) instead of holding it: the reader's memory then stays
// bounded by n whatever the input, even an endless line. n <= 0 means no
// limit.
func (lr *LineReader) SetMaxLine(n int) { lr.max = max(n, 0) }

// SetPassLong makes the reader copy every byte of a line over the maximum,
// terminator included, to w as it streams past, so a copier (acplint fmt)
// keeps such a line exactly without ever holding it. Next still returns
// the line with TooLong set.
func (lr *LineReader) SetPassLong(w io.Writer) { lr.passLong = w }

// MaxLine is the maximum SetMaxLine set, 0 for none.
func (lr *LineReader) MaxLine() int { return lr.max }

// SetAlloc makes Next put each line in memory from alloc instead of a new
// allocation of its own, so that a reader that recycles line memory (lint
// reuses the memory of a batch once the batch is judged) allocates
// nothing per line. A line is then valid as long as that memory is.
func (lr *LineReader) SetAlloc(alloc func(n int) []byte) { lr.alloc = alloc }

// NewLineReader returns a reader over r.
func NewLineReader(r io.Reader) *LineReader {
	return newLineReaderSize(r, 64<<10)
}

// newLineReaderSize reads through a buffer of size bytes; tests use small
// buffers to put line ends at every position relative to a refill.
func newLineReaderSize(r io.Reader, size int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, size)}
}

// Next returns the next line, or io.EOF after the last one. Each returned
// line owns its bytes, unless SetAlloc said where to put them.
func (lr *LineReader) Next() (Line, error) {
	var l Line
	err := lr.NextInto(&l)
	return l, err
}

// NextInto is Next filling *l, which the caller owns: a reader that hands
// lines on through layers of its own (transcript, lint's read-ahead) fills
// the line where it will stay instead of copying it out at every layer.
// *l is overwritten whole; after an error it is the zero Line.
func (lr *LineReader) NextInto(l *Line) error {
	frag, err := lr.r.ReadSlice('\n')
	if err == nil && (lr.max == 0 || len(frag)-1 <= lr.max) {
		// Nearly every line: whole in the buffer, ended by a newline and
		// not over the maximum.
		b := lr.own(frag)
		lr.num++
		*l = Line{Num: lr.num, Offset: lr.offset}
		lr.offset += int64(len(b))
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			l.CRLF = true
		}
		l.Bytes = b
		return nil
	}
	b, skipped, err := lr.read(frag, err)
	if len(b) == 0 && skipped == 0 {
		if err == nil {
			err = io.EOF
		}
		*l = Line{}
		return err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		*l = Line{}
		return err
	}
	lr.num++
	*l = Line{Num: lr.num, Offset: lr.offset}
	if skipped > 0 {
		lr.offset += skipped
		l.TooLong = skipped
		if lr.tail[1] == '\n' {
			l.TooLong--
			if lr.tail[0] == '\r' {
				l.TooLong--
				l.CRLF = true
			}
		} else {
			l.Unterminated = true
		}
		return nil
	}
	lr.offset += int64(len(b))
	if b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
			l.CRLF = true
		}
	} else {
		l.Unterminated = true
	}
	l.Bytes = b
	return nil
}

// read returns the bytes up to and including the next newline, given
// frag and err, what the first ReadSlice of the line returned. A line
// whose content is longer than lr.max is not returned: read streams past
// it, holding no more than about lr.max bytes of it, and returns how many
// bytes it had, terminator included (its last two bytes are in lr.tail).
func (lr *LineReader) read(frag []byte, err error) (line []byte, skipped int64, _ error) {
	if len(frag) == 0 {
		return nil, 0, err // the end, or a read error
	}
	lr.tail = [2]byte{}
	lr.keepTail(frag)
	n := int64(len(frag))
	if err != bufio.ErrBufferFull {
		if lr.over(n) {
			lr.pass(frag)
			return nil, n, err
		}
		return lr.own(frag), 0, err
	}
	// A line longer than the buffer: gather copies of its pieces and put
	// them together once, so that a line costs about twice its size.
	lr.gather(0, frag)
	pieces := 1
	for err == bufio.ErrBufferFull && !lr.over(n-2) {
		frag, err = lr.r.ReadSlice('\n')
		lr.gather(pieces, frag)
		pieces++
		lr.keepTail(frag)
		n += int64(len(frag))
	}
	var b []byte
	if !lr.over(n) {
		b = lr.alloc0(int(n))
		at := 0
		for _, p := range lr.long[:pieces] {
			at += copy(b[at:], p)
		}
	}
	if b == nil {
		for _, p := range lr.long[:pieces] {
			lr.pass(p)
		}
	}
	if n > 1<<20 {
		lr.long = nil // a huge line is rare: do not hold its size for ever
	}
	if b != nil {
		return b, 0, err
	}
	// Too long: count the rest without keeping it.
	for err == bufio.ErrBufferFull {
		frag, err = lr.r.ReadSlice('\n')
		lr.pass(frag)
		lr.keepTail(frag)
		n += int64(len(frag))
	}
	return nil, n, err
}

// pass gives the bytes of a line too long to keep to SetPassLong's writer.
func (lr *LineReader) pass(b []byte) {
	if lr.passLong != nil {
		lr.passLong.Write(b)
	}
}

// over reports whether a line of n bytes whose last two are lr.tail holds
// more than lr.max bytes of content (its terminator not counted).
func (lr *LineReader) over(n int64) bool {
	if lr.max == 0 {
		return false
	}
	if lr.tail[1] == '\n' {
		n--
		if lr.tail[0] == '\r' {
			n--
		}
	}
	return n > int64(lr.max)
}

// gather copies frag into piece i of lr.long, reusing its memory.
func (lr *LineReader) gather(i int, frag []byte) {
	if i < len(lr.long) {
		lr.long[i] = append(lr.long[i][:0], frag...)
	} else {
		lr.long = append(lr.long, bytes.Clone(frag))
	}
}

// keepTail remembers the last two bytes read of the current line.
func (lr *LineReader) keepTail(frag []byte) {
	switch n := len(frag); {
	case n >= 2:
		lr.tail = [2]byte{frag[n-2], frag[n-1]}
	case n == 1:
		lr.tail = [2]byte{lr.tail[1], frag[0]}
	}
}

// alloc0 returns memory for a line of n bytes: from alloc when set.
func (lr *LineReader) alloc0(n int) []byte {
	if lr.alloc != nil {
		return lr.alloc(n)
	}
	return make([]byte, n)
}

// own copies a line out of the reader's buffer into memory of its own.
func (lr *LineReader) own(b []byte) []byte {
	dst := lr.alloc0(len(b))
	copy(dst, b)
	return dst
}

// IsBlank reports whether the line holds only white space. It is asked of
// every line: one that starts with a printable ASCII byte, as JSON does, is
// answered without trimming it.
func (l Line) IsBlank() bool {
	if b := l.Bytes; len(b) > 0 && b[0] > ' ' && b[0] < utf8.RuneSelf {
		return false
	}
	return len(bytes.TrimSpace(l.Bytes)) == 0
}
