package codec_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
)

// splitLinesMax is the reference for a reader with a maximum line length:
// splitLines, with each line whose content is longer than max reported by
// its length alone.
func splitLinesMax(data []byte, max int) []codec.Line {
	lines := splitLines(data)
	for i, l := range lines {
		if len(l.Bytes) > max {
			lines[i].TooLong, lines[i].Bytes = int64(len(l.Bytes)), nil
		}
	}
	return lines
}

// TestLineReaderMaxLine: a line over the maximum comes back with its
// number, offset, terminator and length but no bytes, whatever the buffer
// size and wherever the limit falls relative to "\r\n"; the lines around it
// are read as usual.
func TestLineReaderMaxLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\r\n")
	for range 3000 {
		data := make([]byte, rng.IntN(120))
		for i := range data {
			data[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(4) == 0 {
				data[i] = 'x'
			}
		}
		max := 1 + rng.IntN(40)
		size := 16 + rng.IntN(24)
		var r io.Reader = bytes.NewReader(data)
		if rng.IntN(2) == 0 {
			r = iotest.OneByteReader(r)
		}
		lr := codec.NewLineReaderSize(r, size)
		lr.SetMaxLine(max)
		if rng.IntN(2) == 0 {
			lr.SetAlloc(func(n int) []byte { return make([]byte, n) })
		}
		got := readAll(t, lr)
		if diff := cmp.Diff(splitLinesMax(data, max), got); diff != "" {
			t.Fatalf("%q, max %d, buffer %d (-want +got):\n%s", data, max, size, diff)
		}
	}
}

// endless is an unterminated line of NUL bytes, n long (/dev/zero).
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), e.n))
	clear(p[:k])
	e.n -= int64(k)
	return k, nil
}

// TestLineReaderSkipsInBoundedMemory: reading past a 256 MiB line with a
// 1 MiB maximum allocates a few MiB, not the line: an endless line
// (/dev/zero) cannot exhaust memory.
func TestLineReaderSkipsInBoundedMemory(t *testing.T) {
	const n = 256 << 20
	lr := codec.NewLineReader(io.MultiReader(&endless{n: n}, bytes.NewReader([]byte("\n{}\n"))))
	lr.SetMaxLine(1 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil || l.TooLong != n || l.Bytes != nil || l.Num != 1 || l.Unterminated {
		t.Fatalf("line 1: %+v, %v", l, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("skipping a %d-byte line allocated %d bytes", n, alloc)
	}
	l, err = lr.Next()
	if err != nil || l.Num != 2 || l.Offset != n+1 || string(l.Bytes) != "{}" {
		t.Fatalf("line 2: %+v, %v", l, err)
	}
	if _, err := lr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after line 2: %v", err)
	}
}

// IsBlank answers a line that starts with a printable ASCII byte at once;
// every other line, Unicode white space included, is trimmed as before.
func TestLineIsBlank(t *testing.T) {
	for _, c := range []struct {
		line  string
		blank bool
	}{
		{"", true}, {" \t\r", true}, {"\u00a0", true}, {"\u0085 \u2003", true}, {"\v\f", true},
		{"{}", false}, {"[1]", false}, {"x", false}, {"~", false}, {" {}", false}, {"\u00a0{}", false},
		{"\u00e9", false}, {"\x7f", false}, {"\xff", false},
	} {
		if got := (codec.Line{Bytes: []byte(c.line)}).IsBlank(); got != c.blank {
			t.Errorf("IsBlank(%q) = %v, want %v", c.line, got, c.blank)
		}
	}
}
