package jsonv

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Mode selects what AppendString escapes beyond what JSON requires (quote,
// backslash and control characters). The zero Mode escapes only those,
// byte by byte, and writes every other byte as it is.
type Mode uint8

const (
	// EscapeHTML escapes '<', '>' and '&' as \u003c, \u003e and \u0026, so
	// the string is inert inside an HTML <script> element.
	EscapeHTML Mode = 1 << iota
	// NameBackspaceFormFeed writes \b and \f by name, as encoding/json
	// does, instead of \u0008 and \u000c.
	NameBackspaceFormFeed
	// ReplaceInvalidUTF8 writes each byte that is not part of valid UTF-8
	// as \ufffd, as encoding/json does. Without it such bytes are kept as
	// they are (a lossless writer gives back what it read).
	ReplaceInvalidUTF8
	// EscapeLineSeparators escapes U+2028 and U+2029, line terminators to
	// older JavaScript parsers.
	EscapeLineSeparators

	modeCount = 1 << iota
)

// EncodingJSON escapes as encoding/json does with SetEscapeHTML(false);
// with EscapeHTML added, as json.Marshal does.
const EncodingJSON = NameBackspaceFormFeed | ReplaceInvalidUTF8 | EscapeLineSeparators

// MaxEscapedLen is the most bytes one input byte becomes in a string
// body (a control character as \u00XX), for writers that escape in
// bounded pieces.
const MaxEscapedLen = 6

// AppendString appends s to dst as a quoted JSON string, escaped as mode
// says.
func AppendString[T string | []byte](dst []byte, s T, mode Mode) []byte {
	dst = append(dst, '"')
	dst = AppendStringBody(dst, s, mode)
	return append(dst, '"')
}

// AppendStringBody is AppendString without the quotes, for a string
// written in pieces. In the zero Mode the escaping is byte by byte, so s
// may be cut anywhere; in the others it must be cut between characters.
//
// It is the recorder's largest cost: every forwarded line goes through
// it, and ACP lines have a quote or backslash every ten bytes or so.
// Rather than look at each byte in turn and append each escape, it reads
// s eight bytes at a time and writes a word with up to two quotes or
// backslashes (96% of the words of transcriptgen's ACP lines) with the
// same five stores, with no branch on where they are (quoteWords). Every
// write is by index into dst's free capacity, not through append.
// BenchmarkAppendStringBody pairs it with the escaper before it.
func AppendStringBody[T string | []byte](dst []byte, s T, mode Mode) []byte {
	// out is dst up to its capacity and n the length written.
	out, n := dst[:cap(dst)], len(dst)
	i := 0
	for len(s)-i >= wordsAfter {
		if len(out)-n < maxWordLen {
			out = grow(out, n, len(s)-i+maxWordLen)
		}
		i, n = quoteWords(out, n, s, i, mode)
		if len(s)-i >= wordsAfter && len(out)-n >= maxWordLen {
			i, n = escapeWord(out, n, s, i, mode)
		}
	}
	plain := &plainBytes[mode&(modeCount-1)]
	for i < len(s) {
		if len(out)-n < MaxEscapedLen {
			out = grow(out, n, len(s)-i+MaxEscapedLen)
		}
		switch c := s[i]; {
		case plain[c]:
			out[n] = c
			n++
			i++
		case c < utf8.RuneSelf:
			n = escapeASCII(out, n, c, mode)
			i++
		default:
			i, n = escapeChar(out, n, s, i, mode)
		}
	}
	return out[:n]
}

const (
	// wordsAfter is how many bytes of s must be left for a word to be
	// taken from them: the word and sixteen more. Words write eight bytes
	// at a time, so they write past what they keep, quoteWords up to ten
	// bytes past the end of the word's escaped form. That is overwritten
	// before the end, since every byte still to come from s writes at
	// least one: so nothing past the returned length is written, as
	// append would not.
	wordsAfter = 8 + 16
	// maxWordLen is the most a word writes: eight escapes of six, and a
	// word past them.
	maxWordLen = 8*MaxEscapedLen + 8
)

// quoteWords escapes the words of s from i on while they need at most two
// backslashes and no other escape, and out has room; it returns where s
// and out go on. It is the hot loop: small, with no calls, so its values
// stay in registers.
//
// A word's first two marks are found at bytes k1 and k2 of it, a missing
// one at byte 8, past the word. The word is written whole; then again
// from byte k1 on, a byte later, after a backslash; then again from k2 on,
// two bytes later. With a mark missing those writes land past the word's
// escaped form, where the next word overwrites them. So the writes are
// the same five whatever the marks, and no branch depends on them.
func quoteWords[T string | []byte](out []byte, n int, s T, i int, mode Mode) (int, int) {
	// As many words as s and out have room for, counted once: a word
	// needs 18 bytes of room where it starts and moves n on by at most 10.
	words := min((len(s)-i-(wordsAfter-8))/8, (len(out)-n-(18-10))/10)
	for ; words > 0; words-- {
		x := load64(s, i)
		quotes := equal(x, '"') | equal(x, '\\')
		rest := quotes & (quotes - 1) // all but the first mark
		// otherEscapes, written out: the call would cost as much as the
		// rest of the word.
		other := below(x, 0x20)
		if mode&EscapeHTML != 0 {
			other |= equal(x, '<') | equal(x, '>') | equal(x, '&')
		}
		if mode&ReplaceInvalidUTF8 != 0 {
			other |= x & highBits
		} else if mode&EscapeLineSeparators != 0 {
			other |= equal(x, 0xe2)
		}
		if rest&(rest-1)|other != 0 {
			break
		}
		k1 := bits.TrailingZeros64(quotes) / 8
		k2 := bits.TrailingZeros64(rest) / 8
		w := out[n : n+18]
		binary.LittleEndian.PutUint64(w, x)
		w[k1] = '\\'
		// With k1 8 the shift is 0: the word is written past its escaped
		// form, harmless there, and the shift takes no test for 64.
		binary.LittleEndian.PutUint64(w[k1+1:], x>>(8*k1&63))
		w[k2+1] = '\\'
		binary.LittleEndian.PutUint64(w[k2+2:], x>>(8*k2&63))
		// The marks are the high bits of their bytes: moved to the low
		// bits, the multiplication sums the bytes into the top one.
		n += 8 + int((quotes>>7)*lowBits>>56)
		i += 8
	}
	return i, n
}

// escapeWord escapes the word of s at i, any escapes in it, into out[n:],
// which has room for maxWordLen, and returns where s and out go on: past
// the word, or past a character that starts in it that the mode may
// change.
func escapeWord[T string | []byte](out []byte, n int, s T, i int, mode Mode) (int, int) {
	x := load64(s, i)
	a := equal(x, '"') | equal(x, '\\') | otherEscapes(x, mode)
	j := 0 // the bytes of x written
	for a != 0 {
		k := bits.TrailingZeros64(a) / 8
		a &= a - 1
		// x>>(8*j) starts at byte j; its bytes up to k are plain, the
		// rest is overwritten.
		binary.LittleEndian.PutUint64(out[n:], x>>(8*j))
		n += k - j
		c := byte(x >> (8 * k))
		if c >= utf8.RuneSelf {
			// It may run past x: take it from s.
			return escapeChar(out, n, s, i+k, mode)
		}
		n = escapeASCII(out, n, c, mode)
		j = k + 1
	}
	binary.LittleEndian.PutUint64(out[n:], x>>(8*j))
	return i + 8, n + 8 - j
}

// otherEscapes marks the bytes of x that mode does not keep without a
// look, besides quotes and backslashes: with those, the bytes that
// plainBytes does not mark plain.
func otherEscapes(x uint64, mode Mode) uint64 {
	a := below(x, 0x20)
	if mode&EscapeHTML != 0 {
		a |= equal(x, '<') | equal(x, '>') | equal(x, '&')
	}
	if mode&ReplaceInvalidUTF8 != 0 {
		a |= x & highBits
	} else if mode&EscapeLineSeparators != 0 {
		a |= equal(x, 0xe2)
	}
	return a
}

// grow returns out with room for more bytes after its first n, its
// length its capacity. Room for the rest of s and one escape covers most
// strings at once; one with many escapes grows again, as append does.
func grow(out []byte, n, more int) []byte {
	out = slices.Grow(out[:n], more)
	return out[:cap(out)]
}

const hex = "0123456789abcdef"

// escapeASCII writes the escape of c, an ASCII byte that mode escapes, at
// out[n:], which has room, and returns the length written to.
func escapeASCII(out []byte, n int, c byte, mode Mode) int {
	e := out[n : n+MaxEscapedLen]
	switch {
	case c == '"' || c == '\\':
		e[0], e[1] = '\\', c
		return n + 2
	case shortEscapes[c] != 0 && (c != '\b' && c != '\f' || mode&NameBackspaceFormFeed != 0):
		e[0], e[1] = '\\', shortEscapes[c]
		return n + 2
	}
	e[0], e[1], e[2], e[3], e[4], e[5] = '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf]
	return n + 6
}

// escapeChar writes the character that starts at s[i], a byte of 0x80 or
// more that mode does not keep without a look, at out[n:], which has
// room, and returns where s and out go on.
func escapeChar[T string | []byte](out []byte, n int, s T, i int, mode Mode) (int, int) {
	if mode&ReplaceInvalidUTF8 == 0 {
		// Only 0xE2, which starts U+2028 and U+2029, comes here: no
		// other byte needs a look when bad UTF-8 is kept as it is, and
		// 0xE2 never continues a character, so passing the bytes before
		// it one at a time loses no character's start.
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xa8 {
			e := out[n : n+6]
			e[0], e[1], e[2], e[3], e[4], e[5] = '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf]
			return i + 3, n + 6
		}
		out[n] = s[i]
		return i + 1, n + 1
	}
	r, size := decodeRune(s, i)
	switch {
	case r == utf8.RuneError && size == 1:
		n += copy(out[n:], `\ufffd`)
	case (r == '\u2028' || r == '\u2029') && mode&EscapeLineSeparators != 0:
		e := out[n : n+6]
		e[0], e[1], e[2], e[3], e[4], e[5] = '\\', 'u', '2', '0', '2', hex[r&0xf]
		n += 6
	default:
		n += copy(out[n:], s[i:i+size])
	}
	return i + size, n
}

// load64 reads s[i:i+8] as a little-endian word, so its first byte is the
// lowest (the one bits.TrailingZeros64 finds first). The compiler makes
// it one load.
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// below marks the bytes of x less than c, which is at most 0x80. Each
// byte's low seven bits plus 0x80-c reach the high bit if they are c or
// more, and carry no further (0x7f+0x7f < 0x100), so every mark is exact,
// not only the first as in the usual subtracting test.
func below(x uint64, c byte) uint64 {
	return ^((x&^highBits + lowBits*uint64(0x80-c)) | x) & highBits
}

// equal marks the bytes of x equal to c: those below 1 after x^c.
func equal(x uint64, c byte) uint64 { return below(x^(lowBits*uint64(c)), 1) }

// decodeRune decodes the character at s[i:] without converting s (a
// conversion of the rest of a []byte to a string would copy it, making a
// string of bad bytes quadratic).
func decodeRune[T string | []byte](s T, i int) (rune, int) {
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
	return utf8.DecodeRune(buf[:n])
}

// shortEscapes holds the letter of each control character JSON can write
// as a backslash and a letter.
var shortEscapes = [256]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// plainBytes marks, per mode, the bytes AppendStringBody copies without a
// look: not escaped, and not the start of a character the mode may change.
//
// It is built in package init, which every acplint process runs (issue
// 16): from the zero mode's row, each other row is a copy with a few bytes
// cleared, some 5,000 instructions instead of the 98,000 of deciding every
// byte of every mode.
var plainBytes = func() (t [modeCount][256]bool) {
	base := &t[0]
	for c := 0x20; c < 256; c++ {
		base[c] = true
	}
	base['"'], base['\\'] = false, false
	for m := Mode(1); m < modeCount; m++ {
		row := &t[m]
		*row = *base
		if m&EscapeHTML != 0 {
			row['<'], row['>'], row['&'] = false, false, false
		}
		switch {
		case m&ReplaceInvalidUTF8 != 0:
			clear(row[utf8.RuneSelf:])
		case m&EscapeLineSeparators != 0:
			row[0xe2] = false
		}
	}
	return t
}()
