package htmlreport

import (
	"unicode/utf8"
)

// appendString appends s as a JSON string that is also inert inside an
// HTML <script> element: besides what JSON requires, '<', '>' and '&' are
// escaped (no "</script>" or "<!--" can end or change the element), and so
// are U+2028 and U+2029 (line terminators to older JavaScript parsers).
// Bytes that are not UTF-8 become U+FFFD, as encoding/json writes them.
// Every embedded string, message text and finding alike, goes through it.
func appendString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	b = appendStringBody(b, s)
	return append(b, '"')
}

// appendStringBody is appendString without the quotes, for a string
// written in pieces (a run of text lines).
func appendStringBody[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if !special[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

func decodeRune[T string | []byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	panic("unreachable")
}

// special marks the bytes appendStringBody must look at: those JSON or
// HTML escape, and the start of every multi-byte character (which may be
// U+2028, U+2029 or not UTF-8 at all).
var special = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
	}
	return t
}()
