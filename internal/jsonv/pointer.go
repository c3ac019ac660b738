package jsonv

import (
	"strconv"
	"strings"
)

// Pointer is an RFC 6901 JSON Pointer under construction.
type Pointer string

// Key appends an object member name, escaping '~' and '/'.
func (p Pointer) Key(name string) Pointer {
	return p + "/" + Pointer(EscapeToken(name))
}

var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken writes a member name as a JSON Pointer token: '~' as "~0"
// and '/' as "~1" (RFC 6901).
func EscapeToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return tokenEscaper.Replace(name)
}

// UnescapeToken undoes EscapeToken.
func UnescapeToken(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return tokenUnescaper.Replace(tok)
}

// Index appends an array index.
func (p Pointer) Index(i int) Pointer { return p + "/" + Pointer(strconv.Itoa(i)) }

// Lookup finds the value at pointer p inside v.
func (v *Value) Lookup(p string) (*Value, bool) {
	if p == "" {
		return v, true
	}
	if p[0] != '/' {
		return nil, false
	}
	cur := v
	for _, tok := range strings.Split(p[1:], "/") {
		tok = UnescapeToken(tok)
		switch cur.Kind {
		case Object:
			next, ok := cur.Get(tok)
			if !ok {
				return nil, false
			}
			cur = next
		case Array:
			i, err := strconv.Atoi(tok)
			elems := cur.Elems()
			if err != nil || i < 0 || i >= len(elems) {
				return nil, false
			}
			cur = &elems[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
