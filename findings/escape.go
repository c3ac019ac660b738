package findings

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes untrusted text (method and member names, file names, messages
// that quote them) safe to print on a terminal or in a line-oriented format.
// Findings quote what a peer sent, and a peer chooses those bytes: printed
// raw, an ESC starts a terminal control sequence, a newline forges a second
// finding, a bidi override reorders what a reviewer reads, and a line that
// begins with "::" or contains "##[" is a GitHub Actions workflow command
// when it reaches a runner's log (stderr of a step is parsed too).
//
// Every character that could do any of that is shown as a Go-style escape
// instead: C0 controls, DEL and C1 controls as \n, \t, \x1b, \u0085; line and
// paragraph separators, bidi and byte-order marks and the noncharacters
// U+FFFE/U+FFFF (which XML 1.0 forbids) as \u2028 and the like; each byte of
// invalid UTF-8 as \xff. "##[" becomes "##\x5b", and a leading ":" (after
// any white space, which the Actions runner skips) becomes \x3a, so no
// escaped text can start a workflow command wherever it lands in a line.
//
// Backslashes are left alone: the result is for people to read, not to be
// unquoted, and messages quoting JSON ("\u0061") stay legible. The JSON
// and SARIF outputs carry the exact text.
//
// Text that needs no escaping is returned as is, without allocating.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	lead := leadingSpace(s)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHexByte(&b, s[i])
		case r == ':' && i == lead:
			b.WriteString(`\x3a`)
		case r == '[' && strings.HasSuffix(s[:i], "##"):
			b.WriteString(`\x5b`)
		case unsafeRune(r):
			writeRuneEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first character Escape changes, or
// -1. It is a separate pass so that the common case allocates nothing.
func firstUnsafe(s string) int {
	start := leadingSpace(s)
	if start < len(s) && s[start] == ':' {
		return start
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == '[' && strings.HasSuffix(s[:i], "##")) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// leadingSpace is the length of s's leading white space, as the Actions
// runner's TrimStart sees it (Unicode white space, controls included).
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
}

// unsafeRune reports the valid characters Escape rewrites.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separator
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // ALM, LRM, RLM
		r >= 0x202a && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	case r == 0xfeff, r == 0xfffe, r == 0xffff: // BOM; noncharacters XML forbids
		return true
	}
	return false
}

func writeRuneEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		if r < utf8.RuneSelf {
			writeHexByte(b, byte(r))
			return
		}
		const hex = "0123456789abcdef"
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
}

// writeHexByte writes c as \xhh.
func writeHexByte(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}
