package jsonv

import (
	"strconv"
	"strings"
)

// Offset returns the byte offset in src of what the RFC 6901 pointer p
// names: the opening quote of an object member's name, or the first byte
// of an array element (or of the whole value for ""). When p names
// something src lacks (a missing member, say) it is the place of the
// deepest value p passes through that src has: where the member belongs.
// ok is false when src is not JSON or p not a pointer.
//
// It is how reports give a column that editors jump to.
func Offset(src []byte, p string) (offset int, ok bool) {
	if p != "" && p[0] != '/' {
		return 0, false
	}
	v, err := Parse(src)
	if err != nil {
		return 0, false
	}
	return OffsetIn(&v, src, p)
}

// OffsetIn is Offset in v, the tree parsed from src: a caller that asks
// for several pointers of one line parses it once.
func OffsetIn(v *Value, src []byte, p string) (offset int, ok bool) {
	if p != "" && p[0] != '/' {
		return 0, false
	}
	cur, at := v, v.Start()
	if p == "" {
		return at, true
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = UnescapeToken(tok)
		switch cur.Kind {
		case Object:
			next, found := cur.Get(tok)
			if !found {
				return at, true
			}
			cur, at = next, keyStart(src, next.Start())
		case Array:
			i, err := strconv.Atoi(tok)
			elems := cur.Elems()
			if err != nil || i < 0 || i >= len(elems) {
				return at, true
			}
			cur, at = &elems[i], elems[i].Start()
		default:
			return at, true
		}
	}
	return at, true
}

// keyStart finds the opening quote of the name of the member whose value
// starts at value: back over white space, the colon, white space, and the
// name's string, whose quotes inside are escaped (preceded by an odd
// number of backslashes).
func keyStart(src []byte, value int) int {
	i := value - 1
	skip := func() {
		for i >= 0 && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
			i--
		}
	}
	skip()
	if i < 0 || src[i] != ':' {
		return value
	}
	i--
	skip()
	if i < 0 || src[i] != '"' {
		return value
	}
	for i--; i >= 0; i-- {
		if src[i] != '"' {
			continue
		}
		backslashes := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
	}
	return value
}
