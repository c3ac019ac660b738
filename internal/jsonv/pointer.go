package jsonv

import (
	"strconv"
	"strings"
)

// Pointer is an RFC 6901 JSON Pointer under construction.
type Pointer string

// Key appends an object member name, escaping '~' and '/'.
func (p Pointer) Key(name string) Pointer {
	if strings.ContainsAny(name, "~/") {
		name = strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
	}
	return p + "/" + Pointer(name)
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
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch cur.Kind {
		case Object:
			next, ok := cur.Get(tok)
			if !ok {
				return nil, false
			}
			cur = next
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Elems) {
				return nil, false
			}
			cur = &cur.Elems[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
