package tap

import (
	"bytes"
	"testing"
)

// referenceLines splits stream as the tap promises observers: every line
// that "\n" ends, and a last one without it, as data when it has at most
// maxLine bytes and as its length otherwise.
func referenceLines(stream []byte, maxLine int) []event {
	var evs []event
	for len(stream) > 0 {
		line, rest, found := bytes.Cut(stream, []byte{'\n'})
		switch {
		case len(line) > maxLine:
			evs = append(evs, event{tooLong: len(line)})
		case len(line) > 0:
			evs = append(evs, event{data: line})
		case found:
			evs = append(evs, event{})
		}
		stream = rest
	}
	return evs
}

// cutAll feeds stream to a lineCutter in reads of the sizes reads gives
// (cycled), through one buffer that each read overwrites, as the pump's
// is, and returns what the cutter made of it.
func cutAll(stream []byte, maxLine int, reads []byte) []event {
	c := lineCutter{maxLine: maxLine}
	buf := make([]byte, 256)
	var evs []event
	for i := 0; len(stream) > 0; i++ {
		n := 1
		if len(reads) > 0 {
			n = int(reads[i%len(reads)])%len(buf) + 1
		}
		n = min(n, len(stream))
		copy(buf, stream[:n])
		for rest := buf[:n]; len(rest) > 0; {
			var part []event
			part, rest = c.cut(rest)
			if len(part) > maxReadLines {
				panic("a part of more than maxReadLines lines")
			}
			evs = append(evs, part...)
		}
		for j := range buf {
			buf[j] = '#' // the next read: nothing may point into buf
		}
		stream = stream[n:]
	}
	return append(evs, c.end()...)
}

func sameEvents(t *testing.T, got, want []event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].tooLong != want[i].tooLong || !bytes.Equal(got[i].data, want[i].data) || got[i].inRead {
			t.Fatalf("line %d: got %q (too long: %d, in the read: %v), want %q (too long: %d)",
				i, got[i].data, got[i].tooLong, got[i].inRead, want[i].data, want[i].tooLong)
		}
	}
}

func TestLineCutter(t *testing.T) {
	stream := []byte("{}\n\n" + string(bytes.Repeat([]byte("x"), 300)) + "\nnot json\r\n\n\nlast, unterminated")
	for _, maxLine := range []int{1, 8, 100, 1000} {
		for _, reads := range [][]byte{nil, {0}, {2}, {6, 1, 200}, {255}, {99, 3}} {
			sameEvents(t, cutAll(stream, maxLine, reads), referenceLines(stream, maxLine))
		}
	}
}

// FuzzLineCutter: whatever the bytes and however the reads cut them, the
// cutter gives the lines the reference split gives, in memory of their
// own.
func FuzzLineCutter(f *testing.F) {
	f.Add([]byte("{}\n\nabc\r\nlast"), []byte{3, 1}, uint8(4))
	f.Add([]byte("\n\n\n"), []byte{0}, uint8(0))
	f.Add(bytes.Repeat([]byte("long line\n"), 40), []byte{17, 250}, uint8(12))
	f.Fuzz(func(t *testing.T, stream, reads []byte, maxLine uint8) {
		m := int(maxLine) + 1
		sameEvents(t, cutAll(stream, m, reads), referenceLines(stream, m))
	})
}

// TestLineCutterParts: a read of many short lines is cut into parts of at
// most maxReadLines lines (TestTapMemoryBoundedByQueue has what that is
// for), and no line is lost or doubled at the seams.
func TestLineCutterParts(t *testing.T) {
	c := lineCutter{maxLine: 100}
	chunk := bytes.Repeat([]byte("ab\n\n"), 3*maxReadLines)
	var parts [][]event
	for rest := chunk; len(rest) > 0; {
		var part []event
		part, rest = c.cut(rest)
		parts = append(parts, part)
	}
	var all []event
	for _, p := range parts {
		if len(p) > maxReadLines {
			t.Fatalf("a part of %d lines", len(p))
		}
		all = append(all, p...)
	}
	if len(parts) < 6 {
		t.Fatalf("%d parts, want at least 6 of at most %d lines", len(parts), maxReadLines)
	}
	sameEvents(t, all, referenceLines(chunk, 100))
}
