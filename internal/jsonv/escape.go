package jsonv

import "unicode/utf8"

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
func AppendStringBody[T string | []byte](dst []byte, s T, mode Mode) []byte {
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
