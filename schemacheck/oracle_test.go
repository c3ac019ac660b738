package schemacheck

// The oracle: lint --schema as it was before this package, a JSON Schema
// validator (santhosh-tekuri/jsonschema) whose error tree is mapped onto
// codec problems, plus the shape walk. The differential tests hold the
// compiled checker to exactly its answers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

var _ = big.NewRat

type oracle struct {
	model *schemamodel.Schema
	defs  map[schemamodel.Key]*jsonschema.Schema
}

const schemaURL = "acplint:schema.json"

func compileOracle(m *schemamodel.Schema) (*oracle, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.Raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	s := &oracle{model: m, defs: map[schemamodel.Key]*jsonschema.Schema{}}
	for k, msg := range m.Messages {
		sch, err := c.Compile(schemaURL + "#/$defs/" + url.PathEscape(msg.Def))
		if err != nil {
			return nil, fmt.Errorf("%s: $defs/%s: %w", m.File, msg.Def, err)
		}
		s.defs[k] = sch
	}
	return s, nil
}

type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("not loading %s", u)
}

// validate checks one params or result value (raw; nil when absent)
// against the $def of key, returning problems with pointers under base.
func (s *oracle) validate(key schemamodel.Key, raw json.RawMessage, base string) []codec.Problem {
	msg := s.model.Message(key.Method, key.Kind)
	var inst any = map[string]any{} // absent params read as {}, as the codec does
	if raw != nil {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil // the codec reports lines that are not JSON
		}
		inst = v
	}
	r := &oValidation{s: s, root: inst, base: base, def: msg.Def, key: key}
	if err := s.defs[key].Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			r.walk(ve)
		}
	}
	if inst == nil && key.Kind == schemamodel.KindResponse {
		// "result": null for an object result: the codec's own rule
		// (ACP-SCH-003) says it better than a type error.
		for i, p := range r.probs {
			if p.Kind == codec.ProbType && p.Pointer == base {
				r.probs[i] = codec.Problem{Kind: codec.ProbNullResult, Pointer: base, Def: msg.Def,
					Detail: fmt.Sprintf(`%s result is null; the schema wants an object, so send {}`, key.Method)}
			}
		}
	}
	r.extras(msg.Shape, inst, nil)
	if bytes.Contains(raw, []byte(`"_meta"`)) {
		r.meta(msg.Shape, inst, nil)
	}
	sort.SliceStable(r.probs, func(i, j int) bool { return r.probs[i].Pointer < r.probs[j].Pointer })
	return r.probs
}

type oValidation struct {
	s     *oracle
	key   schemamodel.Key
	root  any
	base  string
	def   string
	probs []codec.Problem
	bad   [][]string // instance locations with a oValidation error
}

var oEnglish = message.NewPrinter(language.English)

func (r *oValidation) add(loc []string, p codec.Problem) {
	if last(loc) == "_meta" || (len(loc) > 0 && last(loc[:len(loc)-1]) == "_meta" && p.Kind == codec.ProbMissing) {
		return // a _meta that is not an object is the codec's ACP-EXTN-004
	}
	if sh := r.s.model.DefShape(p.Def); sh != nil && len(loc) > 0 && p.Kind != codec.ProbMissing && isScalarAlias(sh) {
		// A member typed by a plain alias (ProtocolVersion, SessionId) is
		// named by the object that holds it, as the compiled codec names it.
		if def := r.objectDef(loc[:len(loc)-1]); def != "" {
			p.Def = def
		}
	}
	p.Pointer = r.base + pointer(loc)
	r.probs = append(r.probs, p)
	r.bad = append(r.bad, loc)
}

// walk turns the validator's error tree into codec problems. Unions are
// resolved the way a reader resolves them: by the tag the value carries,
// so one wrong member of a tagged variant gives one problem, not one per
// variant.
func (r *oValidation) walk(e *jsonschema.ValidationError) {
	def := oDefOf(e.SchemaURL, r.def)
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if one, ok := k.(*kind.OneOf); ok && len(one.Subschemas) > 1 {
			r.add(loc, codec.Problem{Kind: codec.ProbUnknownVariant, Def: def,
				Detail: fmt.Sprintf("the value matches more than one variant of %s", def)})
			return
		}
		r.union(e, def)
	case *kind.Required:
		for _, name := range k.Missing {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbMissing, Def: def, Member: name,
				Detail: fmt.Sprintf("%s lacks required %q", def, name)})
		}
	case *kind.Type:
		v := r.at(loc)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is %s; want %s", short(v), article(k.Got), wantTypes(k.Want))})
	case *kind.Const:
		v := r.at(loc)
		r.add(loc, codec.Problem{Kind: codec.ProbEnum, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is not %s", short(v), short(k.Want))})
	case *kind.Enum:
		v := r.at(loc)
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = short(w)
		}
		r.add(loc, codec.Problem{Kind: codec.ProbEnum, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is not one of %s", short(v), strings.Join(want, ", "))})
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum, *kind.MultipleOf:
		v := r.at(loc)
		r.add(loc, codec.Problem{Kind: codec.ProbRange, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is out of range: %s", short(v), e.ErrorKind.LocalizedString(oEnglish))})
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbUnknownMember, Def: def, Member: name,
				Detail: fmt.Sprintf("%q is not a member of %s", name, def)})
		}
	default:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				r.walk(c)
			}
			return
		}
		v := r.at(loc)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is invalid: %s", short(v), e.ErrorKind.LocalizedString(oEnglish))})
	}
}

// objectDef names the definition of the object at loc, following the
// resolved shapes (and the variants the value selects) from the root.
func (r *oValidation) objectDef(loc []string) string {
	sh := r.s.model.Message(r.key.Method, r.key.Kind).Shape
	for i := 0; ; i++ {
		if sh == nil {
			return ""
		}
		v := r.at(loc[:i])
		var props map[string]*schemamodel.Prop
		def := sh.Def
		if obj, ok := v.(map[string]any); ok {
			props, def, _ = oDeclared(sh, obj)
		}
		if i == len(loc) {
			return def
		}
		switch {
		case props[loc[i]] != nil:
			sh = props[loc[i]].Shape
		case sh.Items != nil:
			sh = sh.Items
		case sh.Values != nil:
			sh = sh.Values
		default:
			return ""
		}
	}
}

// union resolves a failed anyOf or oneOf.
func (r *oValidation) union(e *jsonschema.ValidationError, def string) {
	loc := e.InstanceLocation
	v := r.at(loc)
	obj, isObj := v.(map[string]any)
	// The validator reports one cause per oBranch, in order, when none
	// matched; the oBranch schemas come from the union's own keyword.
	keyword := "anyOf"
	if _, ok := e.ErrorKind.(*kind.OneOf); ok {
		keyword = "oneOf"
	}
	unionNode, _ := r.s.node(e.SchemaURL).(map[string]any)
	members, _ := unionNode[keyword].([]any)
	var bs []*oBranch
	for i, c := range e.Causes {
		b := &oBranch{err: c, tags: map[string]tag{}}
		var node any
		if len(members) == len(e.Causes) {
			node = members[i]
		}
		collectTags(r.s.model, node, b.tags, 0)
		if nm, ok := node.(map[string]any); ok {
			_, b.constant = nm["const"]
		}
		if _, ok := c.ErrorKind.(*kind.Type); ok && len(c.InstanceLocation) == len(loc) {
			b.wrongTyp = true
		}
		if isObj && len(b.tags) > 0 {
			b.matched = true
			for name, t := range b.tags {
				got, has := obj[name]
				switch {
				case has && jsonText(got) != t.value:
					b.mismatch, b.matched = true, false
				case !has && t.required:
					b.mismatch, b.matched = true, false
				}
			}
		}
		bs = append(bs, b)
	}
	var candidates, matched []*oBranch
	allConst := len(bs) > 0
	for _, b := range bs {
		allConst = allConst && b.constant
		if b.mismatch || b.wrongTyp || b.constant {
			continue
		}
		candidates = append(candidates, b)
		if b.matched {
			matched = append(matched, b)
		}
	}
	if len(matched) == 1 {
		candidates = matched
	}
	switch {
	case len(candidates) == 1:
		r.walk(candidates[0].err)
	case allConst:
		var want []string
		for _, m := range members {
			if nm, ok := m.(map[string]any); ok {
				want = append(want, short(nm["const"]))
			}
		}
		r.add(loc, codec.Problem{Kind: codec.ProbEnum, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is not one of %s", short(v), strings.Join(want, ", "))})
	case len(candidates) == 0 && isObj:
		name, known := oUnionTag(bs)
		if got, has := obj[name]; name != "" && has {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbUnknownVariant, Def: def, Member: name, Value: short(got),
				Detail: fmt.Sprintf("%s is not a known %s %q (known: %s)", short(got), def, name, strings.Join(known, ", "))})
			r.bad = append(r.bad, loc) // the members cannot be checked either
			return
		}
		if name != "" {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbMissing, Def: def, Member: name,
				Detail: fmt.Sprintf("%s lacks its discriminator %q (one of %s)", def, name, strings.Join(known, ", "))})
			r.bad = append(r.bad, loc)
			return
		}
		r.add(loc, codec.Problem{Kind: codec.ProbUnknownVariant, Def: def,
			Detail: fmt.Sprintf("the object matches none of the variants of %s", def)})
	case len(candidates) == 0:
		var want []string
		for _, b := range bs {
			if t, ok := b.err.ErrorKind.(*kind.Type); ok {
				want = append(want, t.Want...)
			}
		}
		got := jsonType(v)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is %s; want %s", short(v), article(got), wantTypes(want))})
	default:
		// Untagged variants that all fail: name what each one needs.
		var needs []string
		for _, b := range candidates {
			if missing := oRequiredMissing(b.err, len(loc)); len(missing) > 0 {
				needs = append(needs, strings.Join(missing, " and "))
			}
		}
		detail := fmt.Sprintf("the value matches none of the %d variants of %s", len(candidates), def)
		if len(needs) == len(candidates) {
			detail = fmt.Sprintf("the object matches none of the variants of %s: it needs %s", def, strings.Join(needs, ", or "))
		}
		r.add(loc, codec.Problem{Kind: codec.ProbUnknownVariant, Def: def, Detail: detail})
	}
}

// oRequiredMissing lists the members a failed oBranch says are missing on
// the union's own object (at depth), quoted.
func oRequiredMissing(e *jsonschema.ValidationError, depth int) []string {
	var out []string
	if k, ok := e.ErrorKind.(*kind.Required); ok && len(e.InstanceLocation) == depth {
		for _, m := range k.Missing {
			out = append(out, strconv.Quote(m))
		}
	}
	for _, c := range e.Causes {
		out = append(out, oRequiredMissing(c, depth)...)
	}
	return out
}

// oBranch is one member of a failed union, as the value sees it.
type oBranch struct {
	err *jsonschema.ValidationError
	// tags are the oBranch's discriminators; matched says the value
	// carries all of them, mismatch that it carries another value.
	tags              map[string]tag
	mismatch, matched bool
	constant          bool // the oBranch is one constant of an enum
	wrongTyp          bool // the value's JSON type does not fit the oBranch
}

// oUnionTag names the discriminator the branches share and its values.
func oUnionTag(bs []*oBranch) (string, []string) {
	count := map[string]int{}
	vals := map[string][]string{}
	for _, b := range bs {
		for name, t := range b.tags {
			count[name]++
			vals[name] = append(vals[name], t.value)
		}
	}
	best := ""
	for name, n := range count {
		if n > count[best] || (n == count[best] && name < best) {
			best = name
		}
	}
	sort.Strings(vals[best])
	return best, vals[best]
}

// node returns the schema object a validator schema URL points at.
func (s *oracle) node(u string) any {
	_, frag, _ := strings.Cut(u, "#")
	frag, _ = url.PathUnescape(frag)
	var toks []string
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok != "" {
			toks = append(toks, jsonv.UnescapeToken(tok))
		}
	}
	return oDescend(s.model.Doc, toks)
}

// at returns the instance value at loc.
func (r *oValidation) at(loc []string) any { return oDescend(r.root, loc) }

// oDescend follows object keys and array indexes from cur through a value
// decoded by encoding/json; nil when the path leaves the value.
func oDescend(cur any, toks []string) any {
	for _, tok := range toks {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// extras walks the value along the resolved shape for what oValidation
// accepts but the protocol still flags: members the schema does not
// declare (ACP-SCH-004 and its more specific rules) and values of open
// enums it does not list. Subtrees with oValidation errors are skipped.
func (r *oValidation) extras(sh *schemamodel.Shape, v any, loc []string) {
	if sh == nil || sh.Cycle || r.failedAt(loc) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		props, def, catchAll := oDeclared(sh, x)
		if catchAll != nil {
			got := x[catchAll.Tag]
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbOpenEnum, Pointer: r.base + pointer(append(loc[:len(loc):len(loc)], catchAll.Tag)),
				Def: sh.Def, Member: catchAll.Tag, Value: fmt.Sprint(got),
				Detail: fmt.Sprintf("%s is not a known %s %q (known: %s)", short(got), sh.Def, catchAll.Tag, strings.Join(knownTags(sh, catchAll.Tag), ", "))})
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := append(loc[:len(loc):len(loc)], k)
			if k == "_meta" {
				continue // free-form by definition; its type is validated
			}
			if p := props[k]; p != nil {
				r.extras(p.Shape, x[k], child)
				continue
			}
			if sh.Values != nil {
				r.extras(sh.Values, x[k], child)
				continue
			}
			if props == nil {
				continue // an object the schema does not describe
			}
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbUnknownMember, Pointer: r.base + pointer(child), Def: def, Member: k,
				Detail: fmt.Sprintf("%q is not a member of %s", k, def)})
		}
	case []any:
		for i, e := range x {
			r.extras(sh.Items, e, append(loc[:len(loc):len(loc)], strconv.Itoa(i)))
		}
	case string:
		if sh.Enum != nil && sh.Open && !slices.Contains(sh.Enum, jsonText(x)) {
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbOpenEnum, Pointer: r.base + pointer(loc), Def: sh.Def, Member: last(loc), Value: x,
				Detail: fmt.Sprintf("%q is not one of %s", x, strings.Join(sh.Enum, ", "))})
		}
	}
}

// oDeclared returns the members an object may carry under sh: its own and
// those of the variant its tag selects (all untagged variants' when no tag
// decides), the definition that names them, and the catch-all variant
// when that is what the tag selected. props is nil for an object the
// schema leaves free.
func oDeclared(sh *schemamodel.Shape, obj map[string]any) (props map[string]*schemamodel.Prop, def string, catchAll *schemamodel.Variant) {
	def = sh.Def
	if sh.Props == nil && sh.Variants == nil {
		return nil, def, nil
	}
	props = map[string]*schemamodel.Prop{}
	for k, p := range sh.Props {
		props[k] = p
	}
	if sh.Variants == nil {
		return props, def, nil
	}
	var chosen []*schemamodel.Variant
	for _, v := range sh.Variants {
		if v.Tag != "" && !v.CatchAll {
			if got, has := obj[v.Tag]; has && jsonText(got) == v.TagValue {
				chosen = []*schemamodel.Variant{v}
				break
			}
		}
	}
	if chosen == nil {
		for _, v := range sh.Variants {
			if _, has := obj[v.Tag]; v.CatchAll && has {
				chosen, catchAll = []*schemamodel.Variant{v}, v
				break
			}
		}
	}
	if chosen == nil {
		// Untagged variants: the first whose required members are all
		// present, as decoders that try variants in order pick it;
		// failing that, any of them.
		var untagged []*schemamodel.Variant
		for _, v := range sh.Variants {
			if v.Tag == "" {
				untagged = append(untagged, v)
			}
		}
		for _, v := range untagged {
			if oHasRequired(v.Shape, obj) {
				chosen = []*schemamodel.Variant{v}
				break
			}
		}
		if chosen == nil {
			chosen = untagged
		}
	}
	if chosen == nil {
		return nil, def, nil // no variant fits: undecidable, and oValidation says why
	}
	for _, v := range chosen {
		inner, innerDef, _ := oDeclared(v.Shape, obj)
		if inner == nil {
			return nil, def, catchAll
		}
		for k, p := range inner {
			props[k] = p
		}
		// A union of object types (McpServer, SessionUpdate) names the
		// member's type after the variant; a union inside an object with
		// members of its own (CreateElicitationRequest's scopes) after the
		// object, as the compiled codec names them.
		if len(chosen) == 1 && innerDef != "" && len(sh.Props) == 0 {
			def = innerDef
		}
	}
	return props, def, catchAll
}

func oHasRequired(sh *schemamodel.Shape, obj map[string]any) bool {
	for name, p := range sh.Props {
		if _, has := obj[name]; p.Required && !has {
			return false
		}
	}
	return true
}

func (r *oValidation) failedAt(loc []string) bool {
	for _, b := range r.bad {
		if len(b) <= len(loc) && equalPrefix(b, loc) {
			return true
		}
	}
	return false
}

// oDefOf names the innermost $defs entry of a validator schema URL.
func oDefOf(u, fallback string) string {
	_, frag, _ := strings.Cut(u, "#")
	i := strings.LastIndex(frag, "/$defs/")
	if i < 0 {
		return fallback
	}
	name := frag[i+len("/$defs/"):]
	if j := strings.IndexByte(name, '/'); j >= 0 {
		name = name[:j]
	}
	name, _ = url.PathUnescape(name)
	return name
}

// meta is the oracle's judgement of "_meta" (lint's before the checker):
// each "_meta" the schema declares, followed down the decoded value, whose
// declared type does not admit the value.
func (r *oValidation) meta(sh *schemamodel.Shape, v any, loc []string) {
	if sh != nil && sh.Cycle {
		sh = r.s.model.DefShape(sh.Def)
	}
	if sh == nil || sh.Cycle {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		props, def, _ := oDeclared(sh, x)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := append(loc[:len(loc):len(loc)], k)
			p := props[k]
			switch {
			case p != nil && k == "_meta":
				if p.Shape != nil && !admitsType(p.Shape.Types, x[k]) {
					r.probs = append(r.probs, codec.Problem{Kind: codec.ProbMeta, Pointer: r.base + pointer(child), Def: def, Member: "_meta",
						Detail: fmt.Sprintf(`"_meta" is %s; want %s`, article(jsonType(x[k])), typeNames(p.Shape.Types))})
				}
			case p != nil:
				r.meta(p.Shape, x[k], child)
			case sh.Values != nil:
				r.meta(sh.Values, x[k], child)
			}
		}
	case []any:
		for i, e := range x {
			r.meta(sh.Items, e, append(loc[:len(loc):len(loc)], fmt.Sprint(i)))
		}
	}
}

func equalPrefix(prefix, loc []string) bool {
	for i := range prefix {
		if prefix[i] != loc[i] {
			return false
		}
	}
	return true
}
