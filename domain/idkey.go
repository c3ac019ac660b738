package domain

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// idKey is the canonical form of a JSON-RPC id: two ids have the same key
// exactly when JSON says they are the same value. JSON-RPC requires the
// response to carry "the same value" as the request, and JSON values are
// compared by value, not by spelling:
//
//   - numbers by numeric value: 1, 1.0, 1e0 and 10e-1 are one id; so are 0
//     and -0, and -1e2 and -100;
//   - strings by the characters they decode to: "a" and "\u0061" are one id;
//   - a number never equals a string, and null only equals null.
//
// Numbers are not converted to float64, where 1e999999 would overflow and
// 9007199254740993 would collide with its neighbour, nor to big.Float, whose
// size follows the exponent's value: the key is built from the text as
// "n", a sign, the significant digits without leading or trailing zeros and
// the decimal exponent that applies to them as an integer. The work and the
// key's size are linear in the length of the id whatever its exponent. A
// number that is a natural number of at most maxPlainKey digits, which
// nearly every id is, is keyed by its decimal digits instead (0 for every
// zero): an id written that way (7, 120) is its own key, and the key is the
// id's own bytes, with nothing allocated for the lookups of every response.
// No other key starts with a digit.
//
// Anything else (an invalid number or string, an object, an array, a
// boolean: none is a valid id, and the codec reports them) is keyed by its
// exact text.
//
// The key may share raw's memory: it is valid while raw's bytes are.
func idKey(raw []byte) string {
	r := bytes.TrimSpace(raw)
	if len(r) == 0 {
		return ""
	}
	switch c := r[0]; {
	case c == 'n' && string(r) == "null":
		return "z"
	case c == '"':
		if k, ok := stringIDKey(r); ok {
			return k
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if k, ok := numberIDKey(r); ok {
			return k
		}
	}
	return "r" + string(r)
}

// numberIDKey canonicalises a JSON number (RFC 8259 grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?).
func numberIDKey(r []byte) (string, bool) {
	if plainInteger(r) && len(r) <= maxPlainKey {
		// The usual id, 7 or 120: its own key, in its own memory.
		return unsafe.String(unsafe.SliceData(r), len(r)), true
	}
	i := 0
	neg := r[i] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < len(r) && isDigit(r[i]) {
		i++
	}
	intDigits := r[intStart:i]
	if len(intDigits) == 0 || (len(intDigits) > 1 && intDigits[0] == '0') {
		return "", false
	}
	var fracDigits []byte
	if i < len(r) && r[i] == '.' {
		i++
		start := i
		for i < len(r) && isDigit(r[i]) {
			i++
		}
		if fracDigits = r[start:i]; len(fracDigits) == 0 {
			return "", false
		}
	}
	expNeg := false
	var expDigits []byte
	if i < len(r) && (r[i] == 'e' || r[i] == 'E') {
		i++
		if i < len(r) && (r[i] == '+' || r[i] == '-') {
			expNeg = r[i] == '-'
			i++
		}
		start := i
		for i < len(r) && isDigit(r[i]) {
			i++
		}
		if expDigits = r[start:i]; len(expDigits) == 0 {
			return "", false
		}
	}
	if i != len(r) {
		return "", false
	}

	// The value is digits × 10^(exponent − len(fracDigits)); with the
	// trailing zeros of digits moved into the exponent, (digits,
	// exponent) is unique.
	digits := make([]byte, 0, len(intDigits)+len(fracDigits))
	digits = append(digits, bytes.TrimLeft(intDigits, "0")...)
	if len(digits) == 0 {
		digits = append(digits, bytes.TrimLeft(fracDigits, "0")...)
	} else {
		digits = append(digits, fracDigits...)
	}
	if len(digits) == 0 {
		return "0", true // every zero, -0 and 0e999999 included
	}
	trimmed := bytes.TrimRight(digits, "0")
	shift := int64(len(digits)-len(trimmed)) - int64(len(fracDigits))
	exp := addToExponent(expNeg, bytes.TrimLeft(expDigits, "0"), shift)
	if !neg && len(exp) <= 2 {
		// A natural number short enough is keyed by its digits, as
		// the plain integer spelling it is keyed above.
		if e, err := strconv.Atoi(exp); err == nil && e >= 0 && e <= maxPlainKey-len(trimmed) {
			return string(trimmed) + strings.Repeat("0", e), true
		}
	}

	sign := ""
	if neg {
		sign = "-"
	}
	return "n" + sign + string(trimmed) + "e" + exp, true
}

// IDKeyOrder is the order of keys that reports listing requests by id
// follow: the keys' order from before natural numbers were keyed by their
// digits, when every number's key had the "n" form ("n12e0" before
// "n1e1"), so that those reports come out as they always have. It is the
// sort key of k in that order.
func IDKeyOrder(k string) string {
	if k == "" || k[0] < '0' || k[0] > '9' {
		return k
	}
	if k == "0" {
		return "n0"
	}
	t := strings.TrimRight(k, "0")
	return "n" + t + "e" + strconv.Itoa(len(k)-len(t))
}

// maxPlainKey is the most digits of a natural number keyed by its digits;
// a longer one is keyed in the "n" form, so that 1e999999 does not make a
// key of a million zeros.
const maxPlainKey = 40

// addToExponent returns the decimal text of (±digits) + shift. shift is
// bounded by the length of the id, so when digits has more than 18 of them
// the exponent dwarfs it: the sum keeps the exponent's sign and is done
// digit by digit, in time linear in len(digits).
func addToExponent(neg bool, digits []byte, shift int64) string {
	if len(digits) <= 18 {
		e, _ := strconv.ParseInt(string(digits), 10, 64) // "" is 0
		if neg {
			e = -e
		}
		return strconv.FormatInt(e+shift, 10)
	}
	// |exponent| ≥ 10^18 > |shift|: add shift to the magnitude when it
	// has the exponent's sign, subtract it otherwise.
	delta := shift
	if neg {
		delta = -delta
	}
	out := bytes.Clone(digits)
	if delta >= 0 {
		carry := uint64(delta)
		for i := len(out) - 1; i >= 0 && carry > 0; i-- {
			sum := uint64(out[i]-'0') + carry%10
			carry /= 10
			if sum >= 10 {
				sum -= 10
				carry++
			}
			out[i] = byte('0' + sum)
		}
		if carry > 0 {
			out = append([]byte(strconv.FormatUint(carry, 10)), out...)
		}
	} else {
		borrow := uint64(-delta)
		for i := len(out) - 1; i >= 0 && borrow > 0; i-- {
			d := int64(out[i]-'0') - int64(borrow%10)
			borrow /= 10
			if d < 0 {
				d += 10
				borrow++
			}
			out[i] = byte('0' + d)
		}
		out = bytes.TrimLeft(out, "0")
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// plainInteger reports whether r is a non-negative integer without a
// leading zero, the form nearly every id takes.
func plainInteger(r []byte) bool {
	if len(r) == 0 || (r[0] == '0' && len(r) > 1) {
		return false
	}
	for _, c := range r {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// stringIDKey decodes a JSON string to the code units it stands for. A
// lone surrogate escape (\ud800) is kept as itself, in the generalised
// UTF-8 that encodes surrogates, rather than replaced by U+FFFD, so that it
// equals only the same escape. Bytes that are not valid UTF-8 are kept
// as they are, so the key is exact for them too.
func stringIDKey(r []byte) (string, bool) {
	if len(r) < 2 || r[len(r)-1] != '"' {
		return "", false
	}
	body := r[1 : len(r)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if bytes.IndexByte(body, '"') >= 0 {
			return "", false
		}
		return "s" + string(body), true
	}
	out := make([]byte, 0, len(body)+1)
	out = append(out, 's')
	for i := 0; i < len(body); {
		c := body[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		esc := body[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			u, ok := hex4(body, i)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(rune(u)) && u < 0xdc00 {
				if lo, ok := hex4(body, i+2); ok && body[i] == '\\' && body[i+1] == 'u' && lo >= 0xdc00 && lo <= 0xdfff {
					out = utf8.AppendRune(out, utf16.DecodeRune(rune(u), rune(lo)))
					i += 6
					continue
				}
			}
			if utf16.IsSurrogate(rune(u)) {
				// utf8.AppendRune would write U+FFFD; keep the code unit.
				out = append(out, 0xe0|byte(u>>12), 0x80|byte(u>>6)&0x3f, 0x80|byte(u)&0x3f)
				continue
			}
			out = utf8.AppendRune(out, rune(u))
		default:
			return "", false
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape at body[i:].
func hex4(body []byte, i int) (uint16, bool) {
	if i < 0 || i+4 > len(body) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(body[i:i+4]), 16, 16)
	return uint16(v), err == nil
}
