package jsonv

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// appendStringBodyReference is AppendStringBody as it was before it wrote
// by index and scanned eight bytes at a time: a byte table, runs appended
// from the input and each escape appended. It is kept verbatim as the
// definition the fast version must match byte for byte in every mode
// (TestAppendStringBodyReference, FuzzAppendString), and as the other half
// of BenchmarkAppendStringBody.
func appendStringBodyReference[T string | []byte](dst []byte, s T, mode Mode) []byte {
	const hex = "0123456789abcdef"
	plain := &plainBytes[mode&(modeCount-1)]
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case shortEscapes[c] != 0 && (c != '\b' && c != '\f' || mode&NameBackspaceFormFeed != 0):
				dst = append(dst, '\\', shortEscapes[c])
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		if mode&ReplaceInvalidUTF8 == 0 {
			// Only 0xE2, which starts U+2028 and U+2029, comes here: no
			// other byte needs a look when bad UTF-8 is kept as it is,
			// and 0xE2 never continues a character, so skipping the
			// bytes before it one at a time loses no character's start.
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xa8 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		r, size := decodeRune(s, i)
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case (r == '\u2028' || r == '\u2029') && mode&EscapeLineSeparators != 0:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// AppendStringBodyReference lets the external benchmark run the reference.
func AppendStringBodyReference(dst, s []byte, mode Mode) []byte {
	return appendStringBodyReference(dst, s, mode)
}

// checkReference compares AppendStringBody with the reference on s in
// every mode, as a string and as []byte, into destinations of every kind:
// none, one with a prefix and just enough room or a little less (so the
// words run out of room and it grows), and one with the recorder's room.
// Where it does not grow, the capacity past what it returns must be left
// as it was, as append leaves it.
func checkReference(t *testing.T, s []byte) {
	t.Helper()
	const sentinel = 0xa5
	for mode := range Mode(modeCount) {
		want := appendStringBodyReference([]byte("pre"), s, mode)
		if got := AppendStringBody([]byte("pre"), string(s), mode); !bytes.Equal(got, want) {
			t.Fatalf("mode %04b, string %q:\ngot  %q\nwant %q", mode, s, got, want)
		}
		if got := AppendStringBody(nil, s, mode); !bytes.Equal(got, want[3:]) {
			t.Fatalf("mode %04b, nil dst, %q:\ngot  %q\nwant %q", mode, s, got, want[3:])
		}
		for _, room := range []int{0, 1, 7, 17, len(want) - 3 - 9, len(want) - 3 - 1, len(want) - 3, len(want) + 20, len(s)*MaxEscapedLen + 64} {
			if room < 0 {
				continue
			}
			buf := bytes.Repeat([]byte{sentinel}, 3+room)
			copy(buf, "pre")
			got := AppendStringBody(buf[:3], s, mode)
			if !bytes.Equal(got, want) {
				t.Fatalf("mode %04b, room %d, %q:\ngot  %q\nwant %q", mode, room, s, got, want)
			}
			if &got[0] == &buf[0] {
				for k, c := range buf[len(got):] {
					if c != sentinel {
						t.Fatalf("mode %04b, room %d, %q: wrote %#x at %d past the %d bytes it returned", mode, room, s, c, k, len(got))
					}
				}
			}
		}
	}
}

// TestAppendStringBodyReference: AppendStringBody writes what the
// escaper before it wrote, byte for byte, on inputs made to reach each
// of its paths: every byte value at every place in a word, U+2028 and
// U+2029 cut anywhere and placed anywhere, runs of quotes, and random
// bytes from alphabets that are JSON-like, control-heavy, HTML-heavy and
// not UTF-8.
func TestAppendStringBodyReference(t *testing.T) {
	for _, s := range escapeSeeds {
		checkReference(t, []byte(s))
	}
	plain := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"ok"}}`)
	for c := range 256 {
		for at := range 40 {
			s := bytes.Clone(plain[:40])
			s[at] = byte(c)
			checkReference(t, s)
		}
	}
	for _, sep := range []string{"\u2028", "\u2029", "\u2027", "\u202a", "\u00e2", "\ufffd"} {
		for cut := 0; cut <= len(sep); cut++ {
			for at := range 34 {
				s := append(bytes.Repeat([]byte("a"), at), sep[:cut]...)
				checkReference(t, append(s, bytes.Repeat([]byte("b"), 34-at)...))
				checkReference(t, append(bytes.Clone(s), "\"\xe2\x80"...))
			}
		}
	}
	for q := range 12 {
		for at := range 24 {
			s := append(bytes.Repeat([]byte("x"), at), bytes.Repeat([]byte(`"\`), q)...)
			checkReference(t, append(s, bytes.Repeat([]byte("y"), 30)...))
		}
	}
	alphabets := []string{
		`abc "\:,{}[]0123456789`,
		"a\"\\\x00\x01\x08\x0c\n\r\t\x1f\x7f ",
		`<>&"\abc`,
		"a\"\x80\xbf\xc2\xe2\xa8\xa9\xf0\xff\xed",
		"\xe2\x80\xa8\xa9\"é€😀a",
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		alphabet := alphabets[rnd.IntN(len(alphabets))]
		s := make([]byte, rnd.IntN(100))
		for k := range s {
			if rnd.IntN(8) == 0 {
				s[k] = byte(rnd.IntN(256))
			} else {
				s[k] = alphabet[rnd.IntN(len(alphabet))]
			}
		}
		checkReference(t, s)
	}
}
