package schemamodel

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/acplint/acplint/internal/jsonv"
)

// Types is a set of JSON types.
type Types uint8

const (
	TypeNull Types = 1 << iota
	TypeBoolean
	TypeObject
	TypeArray
	TypeNumber
	TypeInteger
	TypeString

	TypeAny     = TypeNull | TypeBoolean | TypeObject | TypeArray | TypeNumber | TypeInteger | TypeString
	typeScalars = TypeBoolean | TypeNumber | TypeInteger | TypeString
)

var typeNames = []struct {
	t    Types
	name string
}{
	{TypeObject, "object"}, {TypeArray, "array"}, {TypeString, "string"}, {TypeNumber, "number"},
	{TypeInteger, "integer"}, {TypeBoolean, "boolean"}, {TypeNull, "null"},
}

func typeByName(name string) Types {
	for _, tn := range typeNames {
		if tn.name == name {
			return tn.t
		}
	}
	return 0
}

// Has reports whether every type of u is in t.
func (t Types) Has(u Types) bool { return t&u == u }

// widen adds integer where number is admitted: every integer is a number.
func (t Types) widen() Types {
	if t&TypeNumber != 0 {
		t |= TypeInteger
	}
	return t
}

func (t Types) String() string {
	if t == TypeAny {
		return "any"
	}
	if t == 0 {
		return "nothing"
	}
	var names []string
	for _, tn := range typeNames {
		if t&tn.t == 0 {
			continue
		}
		if tn.t == TypeInteger && t&TypeNumber != 0 {
			continue
		}
		names = append(names, tn.name)
	}
	return strings.Join(names, " or ")
}

// Shape is the resolved wire shape of one schema node: $ref, allOf and
// unions are folded in, so it says what JSON values the node admits.
// Shapes of definitions are shared between their users; treat them as
// read-only.
type Shape struct {
	// Ptr is the JSON Pointer of the schema object the node comes from
	// (the outermost one: a member's own schema, not its $ref target).
	Ptr string
	// Def is the innermost $defs entry that shaped the node, or "".
	Def   string
	Types Types
	// TypePtr points at the schema whose "type" keyword set Types.
	TypePtr string
	// Enum holds the JSON texts of the allowed constants of an enum;
	// nil when the node is not an enum. Open says other values are
	// admitted too (a catch-all "other" member).
	Enum []string
	Open bool
	// UnstableValues holds the enum values whose own constant carries
	// upstream's **UNSTABLE** marker (a value added ahead of the spec,
	// such as the model_config category before schema 1.16.0).
	UnstableValues map[string]bool
	// EnumPtr points at the schema that lists the values (its oneOf,
	// anyOf, enum or const).
	EnumPtr string
	Props   map[string]*Prop
	Closed  bool // additionalProperties: false
	Items   *Shape
	Values  *Shape // additionalProperties given as a schema (a map)
	// Variants of a union of objects (or of arrays), with VariantsPtr
	// at its anyOf or oneOf.
	Variants    []*Variant
	VariantsPtr string
	// Numeric bounds: minimum, maximum and the upstream integer formats
	// (uint64, int32, …) folded into one range.
	Min, Max *float64
	Format   string
	// Unstable is set when the node's schema, or a definition it
	// references, carries upstream's **UNSTABLE** marker.
	Unstable bool
	// Cycle is set on a $ref back into a definition being resolved; such
	// a node is compared by definition name only.
	Cycle bool
}

// Prop is an object member.
type Prop struct {
	Name     string
	Required bool
	Shape    *Shape
	Ptr      string
	Lenient  Lenient
}

// Lenient are upstream's x-deserialize-* hints: how reference receivers
// treat a malformed member instead of rejecting the message.
type Lenient struct {
	DefaultOnError   bool `json:"x-deserialize-default-on-error,omitempty"`
	DefaultOnNull    bool `json:"x-deserialize-default-on-null,omitempty"`
	SkipInvalidItems bool `json:"x-deserialize-skip-invalid-items,omitempty"`
}

func (l Lenient) String() string {
	var out []string
	if l.DefaultOnError {
		out = append(out, "default-on-error")
	}
	if l.DefaultOnNull {
		out = append(out, "default-on-null")
	}
	if l.SkipInvalidItems {
		out = append(out, "skip-invalid-items")
	}
	if len(out) == 0 {
		return "strict"
	}
	return strings.Join(out, "+")
}

// Variant is one member of a union.
type Variant struct {
	// Label names the variant in paths: `type="http"` for a tagged
	// variant, else its title or definition name.
	Label string
	// Tag is the discriminating member and TagValue its JSON constant;
	// both empty for an untagged variant.
	Tag, TagValue string
	// CatchAll marks an "other" variant that takes any tag value.
	CatchAll bool
	Shape    *Shape
	Ptr      string
}

// PropNamed returns the member name of s, or nil.
func (s *Shape) PropNamed(name string) *Prop {
	if s == nil {
		return nil
	}
	return s.Props[name]
}

type builder struct {
	s    *Schema
	done map[string]*Shape
	busy map[string]bool
}

func newBuilder(s *Schema) *builder {
	return &builder{s: s, done: map[string]*Shape{}, busy: map[string]bool{}}
}

// def returns the shape of a $defs entry, building it once.
func (b *builder) def(name string) *Shape {
	if sh, ok := b.done[name]; ok {
		return sh
	}
	ptr := "/$defs/" + jsonv.EscapeToken(name)
	if b.busy[name] {
		return &Shape{Ptr: ptr, Def: name, Types: TypeAny, Cycle: true}
	}
	b.busy[name] = true
	sh := b.build(b.s.Defs[name], ptr)
	sh.Def = name
	delete(b.busy, name)
	b.done[name] = sh
	return sh
}

func (b *builder) build(node any, ptr string) *Shape {
	s := &Shape{Ptr: ptr, Types: TypeAny}
	b.apply(s, node, ptr)
	return s
}

// apply folds the keywords of schema node (at ptr) into s. Keywords of
// one node all constrain the same value, so they intersect.
func (b *builder) apply(s *Shape, node any, ptr string) {
	n, ok := node.(map[string]any)
	if !ok {
		if v, isBool := node.(bool); isBool && !v {
			s.Types = 0
		}
		return
	}
	if hasMarker(n) {
		s.Unstable = true
	}
	if ref, ok := n["$ref"].(string); ok {
		if name, local := strings.CutPrefix(ref, "#/$defs/"); local {
			name = jsonv.UnescapeToken(name)
			if _, exists := b.s.Defs[name]; exists {
				mergeFacets(s, b.def(name))
				s.Types &= b.def(name).Types
			}
		}
	}
	if t, ok := n["type"]; ok {
		s.Types &= parseTypes(t)
		if s.TypePtr == "" {
			s.TypePtr = ptr + "/type"
		}
	}
	if c, ok := n["const"]; ok {
		s.setEnum([]string{jsonText(c)}, false, ptr)
	}
	if e, ok := n["enum"].([]any); ok {
		vals := make([]string, 0, len(e))
		for _, v := range e {
			vals = append(vals, jsonText(v))
		}
		s.setEnum(vals, false, ptr+"/enum")
	}
	if f, ok := n["format"].(string); ok {
		s.Format = f
		if lo, hi, known := formatRange(f); known {
			s.bound(&lo, &hi)
		}
	}
	if v, ok := number(n["minimum"]); ok {
		s.bound(&v, nil)
	}
	if v, ok := number(n["maximum"]); ok {
		s.bound(nil, &v)
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for _, name := range sortedKeys(props) {
			pptr := ptr + "/properties/" + jsonv.EscapeToken(name)
			child := b.build(props[name], pptr)
			p := &Prop{Name: name, Shape: child, Ptr: pptr, Lenient: lenientOf(props[name])}
			s.addProp(p)
		}
	}
	if req, ok := n["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.require(name, ptr+"/required")
			}
		}
	}
	if items, ok := n["items"]; ok {
		it := b.build(items, ptr+"/items")
		if s.Items == nil {
			s.Items = it
		}
	}
	switch ap := n["additionalProperties"].(type) {
	case bool:
		s.Closed = s.Closed || !ap
	case map[string]any:
		s.Values = b.build(ap, ptr+"/additionalProperties")
	}
	if all, ok := n["allOf"].([]any); ok {
		for i, m := range all {
			b.apply(s, m, fmt.Sprintf("%s/allOf/%d", ptr, i))
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if ms, ok := n[kw].([]any); ok {
			b.union(s, ms, ptr+"/"+kw)
		}
	}
}

// union folds an anyOf or oneOf into s. Null members make s nullable,
// constant members make it an enum (open when a plain scalar member takes
// the rest), and object members become variants.
func (b *builder) union(s *Shape, members []any, ptr string) {
	shapes := make([]*Shape, len(members))
	var all Types
	var nonNull []int
	for i, m := range members {
		shapes[i] = b.build(m, fmt.Sprintf("%s/%d", ptr, i))
		all |= shapes[i].Types
		if shapes[i].Types != TypeNull {
			nonNull = append(nonNull, i)
		}
	}
	if len(nonNull) == 1 {
		// One real member (often beside null): the union only adds
		// nullability, unless the member is a tagged variant, which stays
		// one so that a later version adding variants compares by tag.
		m := shapes[nonNull[0]]
		if v := newVariant(m, members[nonNull[0]], fmt.Sprintf("%s/%d", ptr, nonNull[0])); v.Tag == "" || m.Enum != nil {
			mergeFacets(s, m)
		} else if s.Variants == nil {
			s.Variants, s.VariantsPtr = []*Variant{v}, ptr
		}
		s.Types &= all
		return
	}
	var enum []string
	var unstableValues map[string]bool
	open := false
	var variants []*Variant
	var arrays []int
	for _, i := range nonNull {
		m := shapes[i]
		switch {
		case m.Enum != nil && len(m.Props) == 0 && m.Variants == nil:
			enum = append(enum, m.Enum...)
			for _, v := range m.Enum {
				if m.Unstable || m.UnstableValues[v] {
					unstableValues = markValue(unstableValues, v)
				}
			}
		case m.Types&^typeScalars == 0 && m.Enum == nil && len(m.Props) == 0 && m.Variants == nil:
			open = true // a plain string, number or boolean member
		case m.Types == TypeArray:
			arrays = append(arrays, i)
		default:
			variants = append(variants, newVariant(m, members[i], fmt.Sprintf("%s/%d", ptr, i)))
		}
	}
	if len(arrays) == 1 {
		if s.Items == nil {
			s.Items = shapes[arrays[0]].Items
		}
	} else {
		for _, i := range arrays {
			variants = append(variants, newVariant(shapes[i], members[i], fmt.Sprintf("%s/%d", ptr, i)))
		}
	}
	if lo, hi, ok := hull(shapes, nonNull); ok {
		s.bound(lo, hi)
	}
	if enum != nil {
		s.setEnum(enum, open, ptr)
		for v := range unstableValues {
			s.UnstableValues = markValue(s.UnstableValues, v)
		}
	}
	markCatchAll(variants)
	switch {
	case len(variants) == 1 && variants[0].Tag == "" && !variants[0].CatchAll:
		mergeFacets(s, variants[0].Shape)
	case len(variants) > 0:
		if s.Variants == nil {
			s.Variants = variants
			s.VariantsPtr = ptr
		}
	}
	s.Types &= all
}

// hull is the numeric range of a union whose members are all bounded
// numbers (the ErrorCode constants and their int32 catch-all): a value
// the union admits lies within the widest member bounds. ok is false when
// a member is unbounded or no number.
func hull(shapes []*Shape, members []int) (lo, hi *float64, ok bool) {
	if len(members) == 0 {
		return nil, nil, false
	}
	for _, i := range members {
		m := shapes[i]
		if m.Types&^(TypeNumber|TypeInteger) != 0 || m.Min == nil || m.Max == nil {
			return nil, nil, false
		}
		if lo == nil || *m.Min < *lo {
			lo = m.Min
		}
		if hi == nil || *m.Max > *hi {
			hi = m.Max
		}
	}
	return lo, hi, true
}

func newVariant(m *Shape, raw any, ptr string) *Variant {
	v := &Variant{Shape: m, Ptr: ptr}
	for _, name := range sortedKeys(m.Props) {
		p := m.Props[name]
		if p.Required && len(p.Shape.Enum) == 1 && !p.Shape.Open && p.Shape.Types&^(TypeString|TypeNull) == 0 {
			v.Tag, v.TagValue = name, p.Shape.Enum[0]
			v.Label = name + "=" + p.Shape.Enum[0]
			return v
		}
	}
	if r, ok := raw.(map[string]any); ok {
		v.Label, _ = r["title"].(string)
	}
	if v.Label == "" {
		v.Label = m.Def
	}
	if v.Label == "" {
		v.Label = ptr[strings.LastIndex(ptr, "/")+1:]
	}
	return v
}

// markCatchAll finds the "other" variants: untagged variants that require
// a tag member of the others as a free string.
func markCatchAll(vs []*Variant) {
	tags := map[string]bool{}
	for _, v := range vs {
		if v.Tag != "" {
			tags[v.Tag] = true
		}
	}
	for _, v := range vs {
		if v.Tag != "" {
			continue
		}
		for name := range tags {
			p := v.Shape.Props[name]
			if p != nil && p.Required && p.Shape.Enum == nil && p.Shape.Types.Has(TypeString) {
				v.CatchAll = true
				v.Tag = name
			}
		}
	}
}

// mergeFacets folds built shape d into s (all but Types, which callers
// intersect themselves). Shared parts of d are not modified.
func mergeFacets(s, d *Shape) {
	if s.Def == "" || d.Def != "" {
		if d.Def != "" {
			s.Def = d.Def
		}
	}
	if d.Enum != nil {
		s.setEnum(d.Enum, d.Open, d.EnumPtr)
		for v := range d.UnstableValues {
			s.UnstableValues = markValue(s.UnstableValues, v)
		}
	}
	if s.TypePtr == "" {
		s.TypePtr = d.TypePtr
	}
	for _, name := range sortedKeys(d.Props) {
		s.addProp(d.Props[name])
	}
	if s.Items == nil {
		s.Items = d.Items
	}
	if s.Values == nil {
		s.Values = d.Values
	}
	s.Closed = s.Closed || d.Closed
	if s.Variants == nil && d.Variants != nil {
		s.Variants, s.VariantsPtr = d.Variants, d.VariantsPtr
	}
	s.bound(d.Min, d.Max)
	if s.Format == "" {
		s.Format = d.Format
	}
	s.Unstable = s.Unstable || d.Unstable
	s.Cycle = s.Cycle || d.Cycle
}

func (s *Shape) setEnum(vals []string, open bool, ptr string) {
	vals = sortedUnique(vals)
	if s.Enum == nil {
		s.Enum, s.Open, s.EnumPtr = vals, open, ptr
		return
	}
	// Two enum constraints on one value: only common values pass.
	var keep []string
	for _, v := range s.Enum {
		if slices.Contains(vals, v) || open {
			keep = append(keep, v)
		}
	}
	if keep == nil {
		keep = []string{}
	}
	s.Enum, s.Open = keep, s.Open && open
}

// markValue adds v to set, allocating it on first use: shapes are shared
// between their users, so a set is only ever built, never changed later.
func markValue(set map[string]bool, v string) map[string]bool {
	if set == nil {
		set = map[string]bool{}
	}
	set[v] = true
	return set
}

func (s *Shape) bound(lo, hi *float64) {
	if lo != nil && (s.Min == nil || *lo > *s.Min) {
		v := *lo
		s.Min = &v
	}
	if hi != nil && (s.Max == nil || *hi < *s.Max) {
		v := *hi
		s.Max = &v
	}
}

func (s *Shape) addProp(p *Prop) {
	if s.Props == nil {
		s.Props = map[string]*Prop{}
	}
	if old, ok := s.Props[p.Name]; ok {
		if old.Required == p.Required || old.Required {
			return
		}
		cp := *old
		cp.Required = true
		s.Props[p.Name] = &cp
		return
	}
	s.Props[p.Name] = p
}

func (s *Shape) require(name, ptr string) {
	if s.Props == nil {
		s.Props = map[string]*Prop{}
	}
	p, ok := s.Props[name]
	if !ok {
		// Required without a schema of its own: any value will do.
		s.Props[name] = &Prop{Name: name, Required: true, Shape: &Shape{Ptr: ptr, Types: TypeAny}, Ptr: ptr}
		return
	}
	if p.Required {
		return
	}
	cp := *p // p may belong to a shared definition
	cp.Required = true
	s.Props[name] = &cp
}

func parseTypes(t any) Types {
	switch v := t.(type) {
	case string:
		return typeByName(v).widen()
	case []any:
		var out Types
		for _, e := range v {
			if name, ok := e.(string); ok {
				out |= typeByName(name)
			}
		}
		return out.widen()
	}
	return TypeAny
}

func lenientOf(node any) Lenient {
	n, _ := node.(map[string]any)
	flag := func(k string) bool { b, _ := n[k].(bool); return b }
	return Lenient{
		DefaultOnError:   flag("x-deserialize-default-on-error"),
		DefaultOnNull:    flag("x-deserialize-default-on-null"),
		SkipInvalidItems: flag("x-deserialize-skip-invalid-items"),
	}
}

// formatRange gives the range of upstream's integer formats.
func formatRange(f string) (lo, hi float64, ok bool) {
	switch f {
	case "uint8":
		return 0, math.MaxUint8, true
	case "uint16":
		return 0, math.MaxUint16, true
	case "uint32":
		return 0, math.MaxUint32, true
	case "uint64", "uint":
		return 0, math.MaxUint64, true
	case "int8":
		return math.MinInt8, math.MaxInt8, true
	case "int16":
		return math.MinInt16, math.MaxInt16, true
	case "int32":
		return math.MinInt32, math.MaxInt32, true
	case "int64", "int":
		return math.MinInt64, math.MaxInt64, true
	}
	return 0, 0, false
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// jsonText renders a decoded JSON value canonically (sorted keys), so
// constants compare as text.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedUnique(vs []string) []string {
	out := append([]string(nil), vs...)
	sort.Strings(out)
	j := 0
	for i, v := range out {
		if i == 0 || v != out[j-1] {
			out[j] = v
			j++
		}
	}
	return out[:j]
}
