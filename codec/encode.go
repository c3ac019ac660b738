package codec

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
)

// appendValue appends the JSON encoding of rv.
func appendValue(b []byte, rv reflect.Value) []byte {
	p := planFor(rv.Type())
	switch p.class {
	case classRaw:
		if rv.Len() == 0 {
			return append(b, "null"...)
		}
		return append(b, rv.Bytes()...)
	case classAny:
		return append(b, "null"...)
	case classOpt:
		if domain.Presence(rv.Field(1).Uint()) != domain.Present {
			return append(b, "null"...)
		}
		return appendValue(b, rv.Field(0))
	case classUnion:
		if rv.IsNil() {
			return append(b, "null"...)
		}
		return appendUnion(b, rv.Elem(), p)
	case classStruct:
		return appendStruct(b, rv, p.st, "", "")
	case classSlice:
		b = append(b, '[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, rv.Index(i))
		}
		return append(b, ']')
	case classMap:
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k.String())
			b = append(b, ':')
			b = appendValue(b, rv.MapIndex(k))
		}
		return append(b, '}')
	case classString:
		return appendString(b, rv.String())
	case classBool:
		return strconv.AppendBool(b, rv.Bool())
	case classInt:
		return strconv.AppendInt(b, rv.Int(), 10)
	case classUint:
		return strconv.AppendUint(b, rv.Uint(), 10)
	case classFloat:
		return appendFloat(b, rv.Float())
	}
	return append(b, "null"...)
}

func appendUnion(b []byte, rv reflect.Value, p *typePlan) []byte {
	t := rv.Type()
	if t == p.union.Unknown {
		raw := rv.Field(0).Bytes()
		if len(raw) == 0 {
			return append(b, "null"...)
		}
		return append(b, raw...)
	}
	tag, tagged := p.tagged[t]
	if t.Kind() != reflect.Struct || t.Implements(optionalType) {
		return appendValue(b, rv)
	}
	sp := planFor(t).st
	if _, own := sp.byName[p.union.Tag]; own || !tagged {
		return appendStruct(b, rv, sp, "", "")
	}
	return appendStruct(b, rv, sp, p.union.Tag, tag)
}

// appendStruct writes the members of an object type in declaration order,
// then the members it does not declare, in the order they arrived. When
// tagName is set the union discriminator is written first.
func appendStruct(b []byte, rv reflect.Value, sp *structPlan, tagName, tagValue string) []byte {
	b = append(b, '{')
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if tagName != "" {
		sep()
		b = appendString(b, tagName)
		b = append(b, ':')
		b = appendString(b, tagValue)
	}
	for _, f := range sp.fields {
		fv := rv.Field(f.index)
		if !f.required && omit(fv) {
			continue
		}
		sep()
		b = appendString(b, f.name)
		b = append(b, ':')
		b = appendValue(b, fv)
	}
	if sp.unknown >= 0 {
		for _, m := range rv.Field(sp.unknown).Interface().(domain.Members) {
			sep()
			b = appendString(b, m.Name)
			b = append(b, ':')
			if len(m.Value) == 0 {
				b = append(b, "null"...)
			} else {
				b = append(b, m.Value...)
			}
		}
	}
	return append(b, '}')
}

// omit reports whether an optional member is absent: an unset Opt, a nil
// raw value, or a nil union.
func omit(fv reflect.Value) bool {
	switch planFor(fv.Type()).class {
	case classOpt:
		return domain.Presence(fv.Field(1).Uint()) == domain.Absent
	case classRaw:
		return fv.Len() == 0
	case classUnion, classAny:
		return fv.IsNil()
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone: transcripts are not HTML. Invalid UTF-8 is written as
// is, since it came from the input and the round trip must keep it.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, hexDigits[r&0xf])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
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
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloat formats like encoding/json: the shortest representation, in
// exponent form only for very large or very small magnitudes.
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64)
}
