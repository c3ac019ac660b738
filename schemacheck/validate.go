package schemacheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/acplint/acplint/internal/jsonv"
)

// The validator's semantics, keyword by keyword, for draft 2020-12 as
// acplint configured it (no format or content assertion). valid answers
// yes or no and takes every shortcut; check builds the error tree the
// validator built, for values that valid refused.

func typeOf(v *jsonv.Value) types {
	switch v.Kind {
	case jsonv.Null:
		return tNull
	case jsonv.Bool:
		return tBoolean
	case jsonv.Number:
		return tNumber
	case jsonv.String:
		return tString
	case jsonv.Array:
		return tArray
	}
	return tObject
}

func typeFits(n *node, v *jsonv.Value, t types) bool {
	return n.types&t != 0 || (n.types&tInteger != 0 && t == tNumber && isInteger(v.Str()))
}

// member returns the value of the last member called key, as a decoder
// into a map sees an object with duplicate names; nil when v has none.
func member(v *jsonv.Value, key string) *jsonv.Value {
	ms := v.Members()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Key == key {
			return &ms[i].Value
		}
	}
	return nil
}

// shadowed says whether member i of ms is overwritten by a later one of
// the same name. Objects are small; past a few dozen members the check
// uses an index built once per object. Below, a set of bits taken from
// each name's length and end bytes proves most objects free of repeated
// names in one pass, and only the others are scanned pair by pair.
type dedup struct {
	ms     []jsonv.Member
	last   map[string]int
	unique bool // no name repeats
}

const dedupScan = 32

func newDedup(ms []jsonv.Member) dedup {
	d := dedup{ms: ms}
	if len(ms) < 2 {
		d.unique = true
		return d
	}
	if len(ms) > dedupScan {
		d.last = make(map[string]int, len(ms))
		for i := range ms {
			d.last[ms[i].Key] = i
		}
		return d
	}
	var seen [2]uint64
	for i := range ms {
		k := ms[i].Key
		h := uint(len(k))
		if len(k) > 0 {
			h += uint(k[0])*7 + uint(k[len(k)-1])*13
		}
		h &= 127
		if seen[h>>6]&(1<<(h&63)) != 0 {
			return d // two names may be equal: scan
		}
		seen[h>>6] |= 1 << (h & 63)
	}
	d.unique = true
	return d
}

func (d *dedup) shadowed(i int) bool {
	if d.unique {
		return false
	}
	if d.last != nil {
		return d.last[d.ms[i].Key] != i
	}
	for j := i + 1; j < len(d.ms); j++ {
		if d.ms[j].Key == d.ms[i].Key {
			return true
		}
	}
	return false
}

func (d *dedup) count() int {
	if d.unique {
		return len(d.ms)
	}
	if d.last != nil {
		return len(d.last)
	}
	n := 0
	for i := range d.ms {
		if !d.shadowed(i) {
			n++
		}
	}
	return n
}

// equal is the validator's equality of an instance value and a constant.
func equal(v *jsonv.Value, c any) bool {
	switch want := c.(type) {
	case nil:
		return v.Kind == jsonv.Null
	case bool:
		return v.Kind == jsonv.Bool && v.Bool == want
	case string:
		return v.Kind == jsonv.String && v.Str() == want
	case json.Number:
		if v.Kind != jsonv.Number {
			return false
		}
		if v.Str() == string(want) {
			return ratOK(v.Str())
		}
		a, ok1 := parseDecimal(v.Str())
		b, ok2 := parseDecimal(string(want))
		return ok1 && ok2 && ratOK(v.Str()) && ratOK(string(want)) && a.cmp(b) == 0
	case []any:
		es := v.Elems()
		if v.Kind != jsonv.Array || len(es) != len(want) {
			return false
		}
		for i := range es {
			if !equal(&es[i], want[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		if v.Kind != jsonv.Object {
			return false
		}
		d := newDedup(v.Members())
		if d.count() != len(want) {
			return false
		}
		for k, w := range want {
			m := member(v, k)
			if m == nil || !equal(m, w) {
				return false
			}
		}
		return true
	}
	return false
}

// ratOK says whether math/big, which the validator compared numbers with,
// reads the literal at all.
func ratOK(lit string) bool {
	e := ratExponent(lit)
	return e <= 1e6 && e >= -1e6
}

func inEnum(n *node, v *jsonv.Value) bool {
	if n.enumOf&typeOf(v) == 0 {
		return false
	}
	for _, e := range n.enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

// failsWith says whether a value cannot match a union branch for lack of
// the branch's tag; got is the value's member t.name when the caller
// looked it up already (looked).
func (t tagNeed) failsWith(v *jsonv.Value, got *jsonv.Value, looked bool) bool {
	if t.name == "" || v.Kind != jsonv.Object {
		return false
	}
	if !looked {
		got = member(v, t.name)
	}
	return got == nil || got.Kind != jsonv.String || got.Str() != t.value
}

// valid reports whether v satisfies n.
func valid(n *node, v *jsonv.Value) bool { return validIn(n, v, nil) }

// validIn is valid with d, the dedup of object v when a caller made it
// already (nil otherwise): the nodes that apply to one object ($ref, allOf,
// the branches of a union) share it rather than each proving its names
// unique again.
func validIn(n *node, v *jsonv.Value, d *dedup) bool {
	if n.alias != nil {
		n = n.alias
	}
	t := typeOf(v)
	if n.typeOnly {
		return typeFits(n, v, t)
	}
	has := n.has
	if has&kwNever != 0 {
		return false
	}
	if n.types != 0 && !typeFits(n, v, t) {
		return false
	}
	if has&kwConst != 0 && !equal(v, n.constVal) {
		return false
	}
	if has&kwEnum != 0 && !inEnum(n, v) {
		return false
	}
	if d == nil && v.Kind == jsonv.Object && has&(kwObject|kwSameValue) != 0 {
		dd := newDedup(v.Members())
		d = &dd
	}
	if has&kwRef != 0 && !validIn(n.ref, v, d) {
		return false
	}
	switch v.Kind {
	case jsonv.Object:
		if has&kwObject == 0 {
			break
		}
		ms := v.Members()
		if n.minProps >= 0 || n.maxProps >= 0 {
			c := d.count()
			if (n.minProps >= 0 && c < n.minProps) || (n.maxProps >= 0 && c > n.maxProps) {
				return false
			}
		}
		required := n.required
		if n.propNames != nil {
			// The members of props are counted in the walk below.
			required = n.reqUnscanned
		}
		for _, name := range required {
			if member(v, name) == nil {
				return false
			}
		}
		seenRequired := 0
		for i := range ms {
			if d.shadowed(i) {
				continue
			}
			if n.propNames != nil {
				if j := slices.Index(n.propNames, ms[i].Key); j >= 0 {
					if n.propRequired != nil && n.propRequired[j] {
						seenRequired++
					}
					if !valid(n.propNodes[j], &ms[i].Value) {
						return false
					}
					continue
				}
			} else if p := n.props[ms[i].Key]; p != nil {
				if !valid(p, &ms[i].Value) {
					return false
				}
				continue
			}
			switch n.addl {
			case addNone:
				return false
			case addSchema:
				if !valid(n.addlNode, &ms[i].Value) {
					return false
				}
			}
		}
		if seenRequired < n.reqScanned {
			return false
		}
	case jsonv.Array:
		if has&kwArray == 0 {
			break
		}
		es := v.Elems()
		if (n.minItems >= 0 && len(es) < n.minItems) || (n.maxItems >= 0 && len(es) > n.maxItems) {
			return false
		}
		if n.items != nil {
			for i := range es {
				if !valid(n.items, &es[i]) {
					return false
				}
			}
		}
	case jsonv.String:
		if has&kwString == 0 {
			break
		}
		if n.minLength >= 0 || n.maxLength >= 0 {
			c := utf8.RuneCountInString(v.Str())
			if (n.minLength >= 0 && c < n.minLength) || (n.maxLength >= 0 && c > n.maxLength) {
				return false
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(v.Str()) {
			return false
		}
	case jsonv.Number:
		if has&kwNumber != 0 && !numberValid(n, v.Str()) {
			return false
		}
	}
	if has&(kwNot|kwAllOf|kwAnyOf|kwOneOf) == 0 {
		return true
	}
	if has&kwNot != 0 && validIn(n.not, v, d) {
		return false
	}
	for _, s := range n.allOf {
		if !validIn(s, v, d) {
			return false
		}
	}
	if n.anyOf != nil {
		ok := false
		if n.anyTag != "" && v.Kind == jsonv.Object {
			for _, i := range candidates(v, n.anyTag, n.anyByTag, n.anyOpen) {
				if validIn(n.anyOf[i], v, d) {
					ok = true
					break
				}
			}
		} else {
			for i, s := range n.anyOf {
				if !n.anyTags[i].failsWith(v, nil, false) && validIn(s, v, d) {
					ok = true
					break
				}
			}
		}
		if !ok {
			return false
		}
	}
	if n.oneOf != nil {
		matched := 0
		if n.oneTag != "" && v.Kind == jsonv.Object {
			for _, i := range candidates(v, n.oneTag, n.oneByTag, n.oneOpen) {
				if validIn(n.oneOf[i], v, d) {
					matched++
					if matched > 1 {
						return false
					}
				}
			}
		} else {
			for i, s := range n.oneOf {
				if !n.oneTags[i].failsWith(v, nil, false) && validIn(s, v, d) {
					matched++
					if matched > 1 {
						return false
					}
				}
			}
		}
		if matched != 1 {
			return false
		}
	}
	return true
}

// candidates returns the branches of a union whose tagged branches all
// name member tag that object v may match, by its value of tag: a branch
// tagged with another value, or whose tag v lacks, cannot.
func candidates(v *jsonv.Value, tag string, byTag *tagIndex[[]int], open []int) []int {
	if got := member(v, tag); got != nil && got.Kind == jsonv.String {
		if cands, ok := byTag.get(got.Str()); ok {
			return cands
		}
	}
	return open
}

func numberValid(n *node, lit string) bool {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil {
		return true
	}
	d, _ := parseDecimal(lit)
	return (n.minimum == nil || d.cmp(n.minimum.dec) >= 0) &&
		(n.maximum == nil || d.cmp(n.maximum.dec) <= 0) &&
		(n.exclusiveMinimum == nil || d.cmp(n.exclusiveMinimum.dec) > 0) &&
		(n.exclusiveMaximum == nil || d.cmp(n.exclusiveMaximum.dec) < 0)
}

// errKind is the kind of a validator error that the report tells apart.
type errKind uint8

const (
	eGroup errKind = iota // several errors of one schema
	eReference
	eAllOf
	eAnyOf
	eOneOf
	eRequired
	eType
	eConst
	eEnum
	eRange // minimum, maximum, exclusiveMinimum, exclusiveMaximum
	eAdditional
	eOther // not, false schema, length and count limits, pattern
)

// verr is one node of the validator's error tree.
type verr struct {
	n    *node        // the schema whose keyword failed (the validator's SchemaURL)
	v    *jsonv.Value // the instance value at loc
	loc  []string
	kind errKind
	// names are Required's missing members, Additional's unknown ones and
	// Type's wanted types.
	names []string
	got   string // Type's actual type
	want  any    // Const's constant
	wants []any  // Enum's constants
	pair  bool   // OneOf: more than one branch matched
	msg   string // the validator's wording, for eRange and eOther
	// causes are the errors of the subschemas.
	causes []*verr
}

func newErr(n *node, v *jsonv.Value, loc []string, k errKind) *verr {
	return &verr{n: n, v: v, loc: append([]string(nil), loc...), kind: k}
}

// check returns the validator's error for v against n, nil when v is
// valid. loc is where v sits; the caller keeps it.
func check(n *node, v *jsonv.Value, loc []string) *verr {
	if n.never {
		e := newErr(n, v, loc, eOther)
		e.msg = "false schema"
		return e
	}
	t := typeOf(v)
	if n.types != 0 && !typeFits(n, v, t) {
		e := newErr(n, v, loc, eType)
		e.got = t.names()[0]
		e.names = n.types.names()
		return e
	}
	if n.hasConst && !equal(v, n.constVal) {
		e := newErr(n, v, loc, eConst)
		e.want = n.constVal
		return e
	}
	if n.enum != nil && !inEnum(n, v) {
		e := newErr(n, v, loc, eEnum)
		e.wants = n.enum
		return e
	}
	var errs []*verr
	add := func(e *verr) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if n.ref != nil {
		if e := check(n.ref, v, loc); e != nil {
			re := newErr(n, v, loc, eReference)
			if e.kind == eGroup {
				re.causes = e.causes
			} else {
				re.causes = []*verr{e}
			}
			errs = append(errs, re)
		}
	}
	other := func(format string, args ...any) {
		e := newErr(n, v, loc, eOther)
		e.msg = fmt.Sprintf(format, args...)
		errs = append(errs, e)
	}
	switch v.Kind {
	case jsonv.Object:
		ms := v.Members()
		d := newDedup(ms)
		if n.minProps >= 0 && d.count() < n.minProps {
			other("minProperties: got %s, want %s", printInt(d.count()), printInt(n.minProps))
		}
		if n.maxProps >= 0 && d.count() > n.maxProps {
			other("maxProperties: got %s, want %s", printInt(d.count()), printInt(n.maxProps))
		}
		var missing []string
		for _, name := range n.required {
			if member(v, name) == nil {
				missing = append(missing, name)
			}
		}
		if missing != nil {
			e := newErr(n, v, loc, eRequired)
			e.names = missing
			errs = append(errs, e)
		}
		var extra []string
		for i := range ms {
			if d.shadowed(i) {
				continue
			}
			key := ms[i].Key
			if p := n.prop(key); p != nil {
				add(check(p, &ms[i].Value, append(loc, key)))
				continue
			}
			switch n.addl {
			case addNone:
				extra = append(extra, key)
			case addSchema:
				add(check(n.addlNode, &ms[i].Value, append(loc, key)))
			}
		}
		if extra != nil {
			e := newErr(n, v, loc, eAdditional)
			e.names = extra
			errs = append(errs, e)
		}
	case jsonv.Array:
		es := v.Elems()
		if n.minItems >= 0 && len(es) < n.minItems {
			other("minItems: got %s, want %s", printInt(len(es)), printInt(n.minItems))
		}
		if n.maxItems >= 0 && len(es) > n.maxItems {
			other("maxItems: got %s, want %s", printInt(len(es)), printInt(n.maxItems))
		}
		if n.items != nil {
			for i := range es {
				add(check(n.items, &es[i], append(loc, index(i))))
			}
		}
	case jsonv.String:
		s := v.Str()
		c := utf8.RuneCountInString(s)
		if n.minLength >= 0 && c < n.minLength {
			other("minLength: got %s, want %s", printInt(c), printInt(n.minLength))
		}
		if n.maxLength >= 0 && c > n.maxLength {
			other("maxLength: got %s, want %s", printInt(c), printInt(n.maxLength))
		}
		if n.pattern != nil && !n.pattern.MatchString(s) {
			other("%s does not match pattern %s", quote(s), quote(n.pattern.String()))
		}
	case jsonv.Number:
		lit := v.Str()
		d, _ := parseDecimal(lit)
		got, _ := strconv.ParseFloat(lit, 64)
		for _, r := range []struct {
			b    *bound
			name string
			bad  func(c int) bool
		}{
			{n.minimum, "minimum", func(c int) bool { return c < 0 }},
			{n.maximum, "maximum", func(c int) bool { return c > 0 }},
			{n.exclusiveMinimum, "exclusiveMinimum", func(c int) bool { return c <= 0 }},
			{n.exclusiveMaximum, "exclusiveMaximum", func(c int) bool { return c >= 0 }},
		} {
			if r.b != nil && r.bad(d.cmp(r.b.dec)) {
				e := newErr(n, v, loc, eRange)
				e.msg = fmt.Sprintf("%s: got %s, want %s", r.name, printFloat(got), printFloat(r.b.f))
				errs = append(errs, e)
			}
		}
	}
	if n.not != nil && valid(n.not, v) {
		other("'not' failed")
	}
	if n.allOf != nil {
		var causes []*verr
		for _, s := range n.allOf {
			if e := check(s, v, loc); e != nil {
				causes = append(causes, e)
			}
		}
		if causes != nil {
			e := newErr(n, v, loc, eAllOf)
			e.causes = causes
			errs = append(errs, e)
		}
	}
	if n.anyOf != nil {
		var causes []*verr
		matched := false
		for _, s := range n.anyOf {
			if valid(s, v) {
				matched = true
				break
			}
			causes = append(causes, check(s, v, loc))
		}
		if !matched {
			e := newErr(n, v, loc, eAnyOf)
			e.causes = causes
			errs = append(errs, e)
		}
	}
	if n.oneOf != nil {
		matched := -1
		var causes []*verr
		for i, s := range n.oneOf {
			if !valid(s, v) {
				if matched == -1 {
					causes = append(causes, check(s, v, loc))
				}
				continue
			}
			if matched == -1 {
				matched = i
				continue
			}
			e := newErr(n, v, loc, eOneOf)
			e.pair = true
			errs = append(errs, e)
			break
		}
		if matched == -1 {
			e := newErr(n, v, loc, eOneOf)
			e.causes = causes
			errs = append(errs, e)
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	e := newErr(n, v, loc, eGroup)
	e.causes = errs
	return e
}

// indexes holds the pointer tokens of the first array indexes, so that
// walking an array allocates none; made on first use, so that start-up
// pays nothing for it (TestInitIsCheap).
var indexes = sync.OnceValue(func() []string {
	out := make([]string, 1024)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
})

func index(i int) string {
	if idx := indexes(); i < len(idx) {
		return idx[i]
	}
	return strconv.Itoa(i)
}
