package codec

import (
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// appendValue appends the JSON encoding of rv.
func appendValue(b []byte, rv reflect.Value) []byte {
	p := planFor(rv.Type())
	switch p.class {
	case classRaw:
		return appendRaw(b, rv.Bytes())
	case classVerbatim:
		return appendRaw(b, rv.Field(0).Bytes())
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

// appendRaw writes JSON kept verbatim; an empty value stands for null.
func appendRaw(b, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

func appendUnion(b []byte, rv reflect.Value, p *typePlan) []byte {
	t := rv.Type()
	if t == p.union.Unknown {
		return appendRaw(b, rv.Field(0).Bytes())
	}
	tag, tagged := p.tagged[t]
	if t.Kind() != reflect.Struct || domain.IsVerbatim(t) {
		return appendValue(b, rv)
	}
	sp := planFor(t).st
	if _, own := sp.byName[p.union.Tag]; own || !tagged {
		return appendStruct(b, rv, sp, "", "")
	}
	return appendStruct(b, rv, sp, p.union.Tag, tag)
}

// appendStruct writes an object. When tagName is set the union
// discriminator comes first.
func appendStruct(b []byte, rv reflect.Value, sp *structPlan, tagName, tagValue string) []byte {
	b = append(b, '{')
	first := true
	if tagName != "" {
		b = appendString(b, tagName)
		b = append(b, ':')
		b = appendString(b, tagValue)
		first = false
	}
	b, _ = appendMembers(b, first, rv, sp)
	return append(b, '}')
}

// appendMembers writes the members of an object type without the braces:
// the declared members in declaration order (an inline union where its
// field stands), then the members it does not declare, in the order they
// arrived. first says no member has been written yet.
func appendMembers(b []byte, first bool, rv reflect.Value, sp *structPlan) ([]byte, bool) {
	key := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, name)
		b = append(b, ':')
	}
	for i := range sp.fields {
		f := &sp.fields[i]
		fv := rv.Field(f.index)
		if f.inline != nil {
			b, first = appendInline(b, first, fv, f.inline)
			continue
		}
		if omit(fv) {
			// Absent optional members, and required ones that were missing
			// on the wire (nothing to write for a nil union or an empty id).
			continue
		}
		key(f.name)
		b = appendValue(b, fv)
	}
	if sp.unknown >= 0 {
		for _, m := range rv.Field(sp.unknown).Interface().(domain.Members) {
			key(m.Name)
			b = appendRaw(b, m.Value)
		}
	}
	return b, first
}

// appendInline writes an inline union's discriminator and members into
// the enclosing object (see domain.IsInline).
func appendInline(b []byte, first bool, fv reflect.Value, u *domain.Union) ([]byte, bool) {
	if fv.IsNil() {
		return b, first
	}
	arm := fv.Elem()
	t := arm.Type()
	p := planFor(fv.Type())
	tagValue := func(write func()) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, u.Tag)
		b = append(b, ':')
		write()
	}
	if t == u.Unknown {
		// The Unknown arm of an inline union keeps only its tag's value.
		if raw := arm.Field(0).Bytes(); len(raw) > 0 && u.Tag != "" {
			tagValue(func() { b = append(b, raw...) })
		}
		return b, first
	}
	if tag, ok := p.tagged[t]; ok {
		tagValue(func() { b = appendString(b, tag) })
	}
	if t.Kind() != reflect.Struct {
		return b, first
	}
	return appendMembers(b, first, arm, planFor(t).st)
}

// omit reports whether an optional member is absent: an unset Opt, a nil
// raw value, or a nil union.
func omit(fv reflect.Value) bool {
	switch planFor(fv.Type()).class {
	case classOpt:
		return domain.Presence(fv.Field(1).Uint()) == domain.Absent
	case classRaw:
		return fv.Len() == 0
	case classVerbatim:
		return fv.Field(0).Len() == 0
	case classUnion, classAny:
		return fv.IsNil()
	}
	return false
}

// appendString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone: transcripts are not HTML. Invalid UTF-8 is written as
// is, since it came from the input and the round trip must keep it.
func appendString(b []byte, s string) []byte {
	return jsonv.AppendString(b, s, jsonv.EscapeLineSeparators)
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

// Reencode returns the one message of d's line as Encode writes it, when
// that is provably the same JSON value as the line: ok is false, and the
// caller must keep the line's own bytes, when the decode reported any
// problem (a mistyped member decodes to a zero value, a missing one may
// be encoded as empty), when the line is not exactly one message, or when
// the re-encoding differs from the line in anything but member order and
// insignificant white space: every number spelled as it was, every string
// the same text, no member added or lost.
func Reencode(d *Decoded) (out []byte, ok bool) {
	if len(d.Problems) > 0 || len(d.Msgs) != 1 || d.Msgs[0].Kind == domain.KindInvalid {
		return nil, false
	}
	out = Encode(d.Msgs[0])
	if !sameJSON(d.Line.Bytes, out) {
		return nil, false
	}
	return out, true
}

// sameJSON reports whether a and b are one JSON value each and the same
// value: objects with the same members in any order (a repeated name is
// never the same), and numbers with the same spelling, since only the
// spelling is sure to mean the same to every reader (1.0 is not 1 to
// some, 1e999999 is no float).
func sameJSON(a, b []byte) bool {
	if hasLoneSurrogate(a) || hasLoneSurrogate(b) {
		// The parser reads a lone surrogate escape as U+FFFD, so two
		// different strings would compare equal.
		return false
	}
	va, err := jsonv.Parse(a)
	if err != nil {
		return false
	}
	vb, err := jsonv.Parse(b)
	if err != nil {
		return false
	}
	return sameValue(&va, &vb)
}

func sameValue(a, b *jsonv.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.Null:
		return true
	case jsonv.Bool:
		return a.Bool == b.Bool
	case jsonv.Number, jsonv.String:
		return a.Str() == b.Str()
	case jsonv.Array:
		ea, eb := a.Elems(), b.Elems()
		if len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if !sameValue(&ea[i], &eb[i]) {
				return false
			}
		}
		return true
	case jsonv.Object:
		ma, uniqueA := sortedMembers(a)
		mb, uniqueB := sortedMembers(b)
		if !uniqueA || !uniqueB || len(ma) != len(mb) {
			return false
		}
		for i := range ma {
			if ma[i].Key != mb[i].Key || !sameValue(&ma[i].Value, &mb[i].Value) {
				return false
			}
		}
		return true
	}
	return false
}

// sortedMembers returns v's members sorted by name; unique is false when
// a name repeats.
func sortedMembers(v *jsonv.Value) (ms []jsonv.Member, unique bool) {
	ms = slices.Clone(v.Members())
	slices.SortFunc(ms, func(x, y jsonv.Member) int { return strings.Compare(x.Key, y.Key) })
	for i := 1; i < len(ms); i++ {
		if ms[i].Key == ms[i-1].Key {
			return nil, false
		}
	}
	return ms, true
}

// hasLoneSurrogate reports whether the JSON text b holds a \u escape of a
// UTF-16 surrogate that is not half of a pair. In valid JSON every
// backslash starts an escape inside a string, so b need not be parsed.
func hasLoneSurrogate(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r, ok := hexRune(b, i+2)
		i += 5
		if !ok || !utf16.IsSurrogate(r) {
			continue
		}
		if r >= 0xDC00 {
			return true // a low surrogate with no high one before it
		}
		if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
			return true
		}
		r2, ok := hexRune(b, i+3)
		if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
			return true
		}
		i += 6
	}
	return false
}

// hexRune reads the four hex digits of a \u escape at b[i:].
func hexRune(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// AppendString appends s as a JSON string, as the encoder writes strings:
// nothing escaped that JSON does not require (no \u003c for "<"), and
// bytes that are not UTF-8 written as they are, which acplint's readers
// give back unchanged.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }
