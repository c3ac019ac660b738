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
	"io"
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
}

// LineReader reads lines of any length: a 50 MB message is one line, and
// no line is ever split or dropped. (bufio.Scanner would stop at 64 KiB.)
type LineReader struct {
	r      *bufio.Reader
	num    int
	offset int64
	// alloc, when set, provides the memory of each line (SetAlloc); long
	// gathers a line longer than r's buffer before it moves there.
	alloc func(n int) []byte
	long  []byte
}

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
	b, err := lr.read()
	if len(b) == 0 {
		if err == nil {
			err = io.EOF
		}
		return Line{}, err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Line{}, err
	}
	lr.num++
	l := Line{Num: lr.num, Offset: lr.offset}
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
	return l, nil
}

// read returns the bytes up to and including the next newline.
func (lr *LineReader) read() ([]byte, error) {
	if lr.alloc == nil {
		return lr.r.ReadBytes('\n')
	}
	frag, err := lr.r.ReadSlice('\n')
	if len(frag) == 0 {
		return nil, err // the end, or a read error
	}
	if err != bufio.ErrBufferFull {
		b := lr.alloc(len(frag))
		copy(b, frag)
		return b, err
	}
	lr.long = append(lr.long[:0], frag...)
	for err == bufio.ErrBufferFull {
		frag, err = lr.r.ReadSlice('\n')
		lr.long = append(lr.long, frag...)
	}
	b := lr.alloc(len(lr.long))
	copy(b, lr.long)
	if cap(lr.long) > 1<<20 {
		lr.long = nil // a huge line is rare: do not hold its size for ever
	}
	return b, err
}

// IsBlank reports whether the line holds only white space.
func (l Line) IsBlank() bool { return len(bytes.TrimSpace(l.Bytes)) == 0 }
