package schemacheck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// report turns a value's validator errors and shape walk into problems.
type report struct {
	c     *Checker
	key   schemamodel.Key
	root  *jsonv.Value
	base  string
	def   string
	probs []codec.Problem
	bad   badLocs // instance locations with a validation error
	// index is report.member's, defs objectDef's, for large objects.
	index map[*jsonv.Value]map[string]int
	defs  map[*jsonv.Value]decl
	// sawMeta: extras met a "_meta" member; partial: it left out a part
	// of the value that meta walks (a recursive type, or a subtree with
	// errors). Without either, meta has nothing to judge.
	sawMeta, partial bool
}

func (r *report) add(loc []string, p codec.Problem) {
	if last(loc) == "_meta" || (len(loc) > 0 && last(loc[:len(loc)-1]) == "_meta" && p.Kind == codec.ProbMissing) {
		return // a _meta that is not an object is the codec's ACP-EXTN-004
	}
	if len(loc) > 0 && p.Kind != codec.ProbMissing && r.c.scalarAlias[p.Def] {
		// A member typed by a plain alias (ProtocolVersion, SessionId) is
		// named by the object that holds it, as the compiled codec names it.
		if def := r.objectDef(loc[:len(loc)-1]); def != "" {
			p.Def = def
		}
	}
	p.Pointer = r.base + pointer(loc)
	r.probs = append(r.probs, p)
	r.bad.insert(loc)
}

// member is member(v, key) for the lookups the report repeats from the
// root, one per problem: a large object is indexed once, so that many
// problems in one object cost linear time, not quadratic.
func (r *report) member(v *jsonv.Value, key string) *jsonv.Value {
	ms := v.Members()
	if len(ms) <= dedupScan {
		return member(v, key)
	}
	if r.index == nil {
		r.index = map[*jsonv.Value]map[string]int{}
	}
	last := r.index[v]
	if last == nil {
		last = make(map[string]int, len(ms))
		for i := range ms {
			last[ms[i].Key] = i
		}
		r.index[v] = last
	}
	if i, ok := last[key]; ok {
		return &ms[i].Value
	}
	return nil
}

// badLocs holds the instance locations with a validation error as a tree
// of their tokens, which extras descends with the value: whether a
// location lies under one costs a step per level, not a scan of them all.
type badLocs struct {
	here bool
	kids map[string]*badLocs
}

func (b *badLocs) insert(loc []string) {
	for _, tok := range loc {
		if b.here {
			return
		}
		next := b.kids[tok]
		if next == nil {
			if b.kids == nil {
				b.kids = map[string]*badLocs{}
			}
			next = &badLocs{}
			b.kids[tok] = next
		}
		b = next
	}
	b.here = true
}

// kid is the tree under token tok; nil when nothing under it failed.
func (b *badLocs) kid(tok string) *badLocs {
	if b == nil {
		return nil
	}
	return b.kids[tok]
}

// toAny decodes v as encoding/json does with UseNumber (nil for nil).
func toAny(v *jsonv.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonv.Bool:
		return v.Bool
	case jsonv.Number:
		return json.Number(v.Str())
	case jsonv.String:
		return v.Str()
	case jsonv.Array:
		es := v.Elems()
		out := make([]any, len(es))
		for i := range es {
			out[i] = toAny(&es[i])
		}
		return out
	case jsonv.Object:
		ms := v.Members()
		out := make(map[string]any, len(ms))
		for i := range ms {
			out[ms[i].Key] = toAny(&ms[i].Value)
		}
		return out
	}
	return nil
}

// walk turns the validator's error tree into codec problems. Unions are
// resolved the way a reader resolves them: by the tag the value carries,
// so one wrong member of a tagged variant gives one problem, not one per
// variant.
func (r *report) walk(e *verr) {
	def := e.n.def
	if def == "" {
		def = r.def
	}
	loc := e.loc
	switch e.kind {
	case eAnyOf, eOneOf:
		if e.pair {
			r.add(loc, codec.Problem{Kind: codec.ProbUnknownVariant, Def: def,
				Detail: fmt.Sprintf("the value matches more than one variant of %s", def)})
			return
		}
		r.union(e, def)
	case eRequired:
		for _, name := range e.names {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbMissing, Def: def, Member: name,
				Detail: fmt.Sprintf("%s lacks required %q", def, name)})
		}
	case eType:
		v := toAny(e.v)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is %s; want %s", short(v), article(e.got), wantTypes(e.names))})
	case eConst:
		v := toAny(e.v)
		r.add(loc, codec.Problem{Kind: codec.ProbEnum, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is not %s", short(v), short(e.want))})
	case eEnum:
		v := toAny(e.v)
		want := make([]string, len(e.wants))
		for i, w := range e.wants {
			want[i] = short(w)
		}
		r.add(loc, codec.Problem{Kind: codec.ProbEnum, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is not one of %s", short(v), strings.Join(want, ", "))})
	case eRange:
		v := toAny(e.v)
		r.add(loc, codec.Problem{Kind: codec.ProbRange, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is out of range: %s", short(v), e.msg)})
	case eAdditional:
		for _, name := range e.names {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbUnknownMember, Def: def, Member: name,
				Detail: fmt.Sprintf("%q is not a member of %s", name, def)})
		}
	default:
		if len(e.causes) > 0 {
			for _, c := range e.causes {
				r.walk(c)
			}
			return
		}
		v := toAny(e.v)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is invalid: %s", short(v), e.msg)})
	}
}

func isScalarAlias(sh *schemamodel.Shape) bool {
	return sh.Enum == nil && sh.Variants == nil && sh.Props == nil && sh.Types&schemamodel.TypeObject == 0
}

// objectDef names the definition of the object at loc, following the
// resolved shapes (and the variants the value selects) from the root.
func (r *report) objectDef(loc []string) string {
	sh := r.c.model.Message(r.key.Method, r.key.Kind).Shape
	v := r.root
	for i := 0; ; i++ {
		if sh == nil {
			return ""
		}
		def := sh.Def
		var d decl
		isObj := v != nil && v.Kind == jsonv.Object
		if isObj {
			d = r.declared(sh, v)
			def = d.def
		}
		if i == len(loc) {
			return def
		}
		var p *schemamodel.Prop
		if isObj && !d.free {
			p = d.prop(loc[i], v)
		}
		switch {
		case p != nil:
			sh = p.Shape
		case sh.Items != nil:
			sh = sh.Items
		case sh.Values != nil:
			sh = sh.Values
		default:
			return ""
		}
		v = r.value1(v, loc[i])
	}
}

// value1 is the value at token tok under v; nil when there is none.
func (r *report) value1(v *jsonv.Value, tok string) *jsonv.Value {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonv.Object:
		return r.member(v, tok)
	case jsonv.Array:
		i, err := strconv.Atoi(tok)
		es := v.Elems()
		if err != nil || i < 0 || i >= len(es) {
			return nil
		}
		return &es[i]
	}
	return nil
}

// declared is c.declared, kept for large objects, whose members objectDef
// would otherwise look through once per problem among them.
func (r *report) declared(sh *schemamodel.Shape, v *jsonv.Value) decl {
	if len(v.Members()) <= dedupScan {
		return r.c.declared(sh, v)
	}
	if d, ok := r.defs[v]; ok && d.sh == sh {
		return d
	}
	if r.defs == nil {
		r.defs = map[*jsonv.Value]decl{}
	}
	d := r.c.declared(sh, v)
	r.defs[v] = d
	return d
}

// branch is one member of a failed union, as the value sees it.
type branch struct {
	err *verr
	// tags are the branch's discriminators; matched says the value
	// carries all of them, mismatch that it carries another value.
	tags              map[string]tag
	mismatch, matched bool
	constant          bool // the branch is one constant of an enum
	wrongTyp          bool // the value's JSON type does not fit the branch
}

type tag struct {
	value    string
	required bool
}

// union resolves a failed anyOf or oneOf.
func (r *report) union(e *verr, def string) {
	loc := e.loc
	v := toAny(e.v)
	obj, isObj := v.(map[string]any)
	keyword := "anyOf"
	if e.kind == eOneOf {
		keyword = "oneOf"
	}
	members, _ := e.n.raw[keyword].([]any)
	facts := e.n.anyFacts
	if e.kind == eOneOf {
		facts = e.n.oneFacts
	}
	var bs []*branch
	for i, c := range e.causes {
		b := &branch{err: c}
		if len(members) == len(e.causes) {
			b.tags, b.constant = facts[i].tags, facts[i].constant
		}
		if c.kind == eType && len(c.loc) == len(loc) {
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
	var candidates, matched []*branch
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
		name, known := unionTag(bs)
		if got, has := obj[name]; name != "" && has {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbUnknownVariant, Def: def, Member: name, Value: short(got),
				Detail: fmt.Sprintf("%s is not a known %s %q (known: %s)", short(got), def, name, strings.Join(known, ", "))})
			r.bad.insert(loc) // the members cannot be checked either
			return
		}
		if name != "" {
			r.add(append(loc[:len(loc):len(loc)], name), codec.Problem{Kind: codec.ProbMissing, Def: def, Member: name,
				Detail: fmt.Sprintf("%s lacks its discriminator %q (one of %s)", def, name, strings.Join(known, ", "))})
			r.bad.insert(loc)
			return
		}
		r.add(loc, codec.Problem{Kind: codec.ProbUnknownVariant, Def: def,
			Detail: fmt.Sprintf("the object matches none of the variants of %s", def)})
	case len(candidates) == 0:
		var want []string
		for _, b := range bs {
			if b.err.kind == eType {
				want = append(want, b.err.names...)
			}
		}
		got := jsonType(v)
		r.add(loc, codec.Problem{Kind: codec.ProbType, Def: def, Member: last(loc), Value: short(v),
			Detail: fmt.Sprintf("%s is %s; want %s", short(v), article(got), wantTypes(want))})
	default:
		// Untagged variants that all fail: name what each one needs.
		var needs []string
		for _, b := range candidates {
			if missing := requiredMissing(b.err, len(loc)); len(missing) > 0 {
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

// branchFacts are the discriminators and constancy of one union branch's
// schema, which union reads each time the union fails.
type branchFacts struct {
	tags     map[string]tag
	constant bool // the branch is one constant of an enum
}

// unionFacts are the facts of each member of a union keyword's array.
func unionFacts(m *schemamodel.Schema, keyword any) []branchFacts {
	members, _ := keyword.([]any)
	if members == nil {
		return nil
	}
	out := make([]branchFacts, len(members))
	for i, node := range members {
		out[i].tags = map[string]tag{}
		collectTags(m, node, out[i].tags, 0)
		if nm, ok := node.(map[string]any); ok {
			_, out[i].constant = nm["const"]
		}
	}
	return out
}

// requiredMissing lists the members a failed branch says are missing on
// the union's own object (at depth), quoted.
func requiredMissing(e *verr, depth int) []string {
	var out []string
	if e.kind == eRequired && len(e.loc) == depth {
		for _, m := range e.names {
			out = append(out, strconv.Quote(m))
		}
	}
	for _, c := range e.causes {
		out = append(out, requiredMissing(c, depth)...)
	}
	return out
}

// collectTags finds the constant members (discriminators) a union branch
// declares, looking through $ref and allOf.
func collectTags(m *schemamodel.Schema, node any, out map[string]tag, depth int) {
	n, ok := node.(map[string]any)
	if !ok || depth > 4 {
		return
	}
	req := map[string]bool{}
	if rs, ok := n["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				if c, has := pm["const"]; has {
					out[name] = tag{value: jsonText(c), required: req[name]}
				}
			}
		}
	}
	if ref, ok := n["$ref"].(string); ok {
		if name, local := strings.CutPrefix(ref, "#/$defs/"); local {
			collectTags(m, m.Defs[name], out, depth+1)
		}
	}
	if all, ok := n["allOf"].([]any); ok {
		for _, a := range all {
			collectTags(m, a, out, depth+1)
		}
	}
}

// unionTag names the discriminator the branches share and its values.
func unionTag(bs []*branch) (string, []string) {
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

// extras walks the value along the resolved shape for what validation
// accepts but the protocol still flags: members the schema does not
// declare (ACP-SCH-004 and its more specific rules) and values of open
// enums it does not list. Subtrees with validation errors are skipped.
// loc is a stack the walk pushes onto and pops; bad is r.bad under loc;
// f is the facts of sh when the caller has them at hand.
func (r *report) extras(sh *schemamodel.Shape, f *shapeFacts, v *jsonv.Value, loc []string, bad *badLocs) {
	if sh == nil {
		return
	}
	if sh.Cycle || (bad != nil && bad.here) {
		r.partial = true
		return
	}
	switch v.Kind {
	case jsonv.Object:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		d := r.c.declaredWith(sh, f, v)
		if d.catchAll != nil {
			got := toAny(member(v, d.catchAll.Tag))
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbOpenEnum, Pointer: r.base + pointer(append(loc[:len(loc):len(loc)], d.catchAll.Tag)),
				Def: sh.Def, Member: d.catchAll.Tag, Value: sprint(got),
				Detail: fmt.Sprintf("%s is not a known %s %q (known: %s)", short(got), sh.Def, d.catchAll.Tag, strings.Join(knownTags(sh, d.catchAll.Tag), ", "))})
		}
		ms := v.Members()
		// Most members are declared ones with nothing to find under them,
		// whether a later member of their name shadows them or not: the
		// names are proved unique only once a member needs it, which
		// spares objects of such members alone the proof.
		var dd dedup
		deduped := false
		for i := range ms {
			k := ms[i].Key
			if k == "_meta" {
				r.sawMeta = true
				continue // _meta is free-form by definition; meta judges its type
			}
			var p *schemamodel.Prop
			var pf *shapeFacts
			if !d.free {
				if p, pf = d.propFacts(k); p != nil && pf != nil && pf.quiet && bad.kid(k) == nil {
					continue
				}
			}
			if !deduped {
				dd, deduped = newDedup(ms), true
			}
			if dd.shadowed(i) {
				continue
			}
			child := append(loc, k)
			if p != nil {
				r.extras(p.Shape, pf, &ms[i].Value, child, bad.kid(k))
				continue
			}
			if sh.Values != nil {
				r.extras(sh.Values, f.valuesFacts(), &ms[i].Value, child, bad.kid(k))
				continue
			}
			if d.free {
				continue // an object the schema does not describe
			}
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbUnknownMember, Pointer: r.base + pointer(child), Def: d.def, Member: k,
				Detail: fmt.Sprintf("%q is not a member of %s", k, d.def)})
		}
	case jsonv.Array:
		es := v.Elems()
		var itemFacts *shapeFacts
		if f != nil {
			itemFacts = f.items
		}
		if itemFacts != nil && itemFacts.quiet && bad == nil {
			return
		}
		for i := range es {
			tok := index(i)
			r.extras(sh.Items, itemFacts, &es[i], append(loc, tok), bad.kid(tok))
		}
	case jsonv.String:
		if x := v.Str(); sh.Enum != nil && sh.Open && !enumHas(sh.Enum, x) {
			r.probs = append(r.probs, codec.Problem{Kind: codec.ProbOpenEnum, Pointer: r.base + pointer(loc), Def: sh.Def, Member: last(loc), Value: x,
				Detail: fmt.Sprintf("%q is not one of %s", x, strings.Join(sh.Enum, ", "))})
		}
	}
}

// enumHas says whether the JSON texts of an enum hold string s.
func enumHas(enum []string, s string) bool {
	for _, e := range enum {
		if isText(v2s(s), e) {
			return true
		}
	}
	return false
}

// textValue is an instance value to compare with a constant's JSON text.
type textValue struct {
	v   *jsonv.Value
	s   string
	str bool
}

func v2s(s string) textValue { return textValue{s: s, str: true} }

// isText says whether the value's JSON text, as encoding/json writes it, is
// text; strings compare without encoding them.
func isText(tv textValue, text string) bool {
	if tv.v != nil && tv.v.Kind == jsonv.String {
		tv = v2s(tv.v.Str())
	}
	if tv.str {
		if len(text) < 2 || text[0] != '"' {
			return false
		}
		if !strings.ContainsRune(text, '\\') {
			return text[1:len(text)-1] == tv.s
		}
		var want string
		return json.Unmarshal([]byte(text), &want) == nil && want == tv.s
	}
	return jsonText(toAny(tv.v)) == text
}

// decl is what declared says of an object under a shape.
type decl struct {
	c  *Checker
	sh *schemamodel.Shape
	// facts are sh's (nil when it has none), oneFacts one's when oneFlat.
	facts, oneFacts *shapeFacts
	// free: the schema leaves the object free (no declared members).
	free     bool
	def      string
	catchAll *schemamodel.Variant
	// The variants whose members the object may carry: one, or all the
	// untagged ones.
	one         *schemamodel.Variant
	allUntagged bool
	// oneFlat says one's shape declares its members itself (no union
	// inside), so prop looks them up without judging the object again.
	oneFlat bool
	// subs are what declared says under the untagged variants, in order
	// (allUntagged), or under one when it is not flat: prop asks them per
	// member, and judging the object again per member would be quadratic.
	subs []decl
}

// declared finds the members an object may carry under sh: its own and
// those of the variant its tag selects (all untagged variants' when no tag
// decides), the definition that names them, and the catch-all variant
// when that is what the tag selected.
func (c *Checker) declared(sh *schemamodel.Shape, obj *jsonv.Value) decl {
	return c.declaredWith(sh, nil, obj)
}

// declaredWith is declared with the facts of sh, when known (f not nil),
// which saves looking them up.
func (c *Checker) declaredWith(sh *schemamodel.Shape, f *shapeFacts, obj *jsonv.Value) decl {
	d := decl{c: c, sh: sh, def: sh.Def}
	if sh.Props == nil && sh.Variants == nil {
		d.free = true
		return d
	}
	if f == nil {
		f = c.facts[sh]
	}
	d.facts = f
	if sh.Variants == nil {
		return d
	}
	one := -1 // the index of d.one in sh.Variants
	if f != nil && f.byTag != nil {
		if got := member(obj, f.tag); got != nil && got.Kind == jsonv.String {
			if i, ok := f.byTag.get(got.Str()); ok {
				one = i
			}
		}
	} else {
		// The variants of a union mostly share one tag member: look it
		// up once, not once per variant.
		var tag string
		var got *jsonv.Value
		for i, v := range sh.Variants {
			if v.Tag != "" && !v.CatchAll {
				if v.Tag != tag {
					tag, got = v.Tag, member(obj, v.Tag)
				}
				if got != nil && isText(textValue{v: got}, v.TagValue) {
					one = i
					break
				}
			}
		}
	}
	if one < 0 {
		for i, v := range sh.Variants {
			if v.CatchAll && member(obj, v.Tag) != nil {
				one, d.catchAll = i, v
				break
			}
		}
	}
	if one < 0 {
		// Untagged variants: the first whose required members are all
		// present, as decoders that try variants in order pick it;
		// failing that, any of them.
		untagged := 0
		for i, v := range sh.Variants {
			if v.Tag == "" {
				untagged++
				if one < 0 && hasRequired(v.Shape, f.variantFacts(i), obj) {
					one = i
				}
			}
		}
		if one < 0 {
			if untagged == 0 {
				d.free = true // no variant fits: undecidable, and validation says why
				return d
			}
			d.allUntagged = true
			if untagged == 1 {
				for i, v := range sh.Variants {
					if v.Tag == "" {
						one, d.allUntagged = i, false
					}
				}
			}
		}
	}
	if d.allUntagged {
		for i, v := range sh.Variants {
			if v.Tag == "" {
				sub := c.declaredWith(v.Shape, f.variantFacts(i), obj)
				if sub.free {
					d.free, d.subs = true, nil
					return d
				}
				d.subs = append(d.subs, sub)
			}
		}
		return d
	}
	d.one = sh.Variants[one]
	inner := c.declaredWith(d.one.Shape, f.variantFacts(one), obj)
	if inner.free {
		d.free = true
		return d
	}
	d.oneFlat = inner.one == nil && !inner.allUntagged
	d.oneFacts = inner.facts
	if !d.oneFlat {
		d.subs = []decl{inner}
	}
	// A union of object types (McpServer, SessionUpdate) names the
	// member's type after the variant; a union inside an object with
	// members of its own (CreateElicitationRequest's scopes) after the
	// object, as the compiled codec names them.
	if inner.def != "" && len(sh.Props) == 0 {
		d.def = inner.def
	}
	return d
}

// prop returns the declared member name of obj; later variants win over
// earlier ones and over the shape's own members, as they were merged.
func (d *decl) prop(name string, obj *jsonv.Value) *schemamodel.Prop {
	p, _ := d.propFacts(name)
	return p
}

// propFacts is prop with the facts of the member's shape, when the tables
// hold them (nil otherwise).
func (d *decl) propFacts(name string) (*schemamodel.Prop, *shapeFacts) {
	if d.oneFlat {
		if p, f := d.oneFacts.prop(d.one.Shape, name); p != nil {
			return p, f
		}
	} else {
		// Untagged variants in reverse order; a one that is not flat.
		for i := len(d.subs) - 1; i >= 0; i-- {
			if p, f := d.subs[i].propFacts(name); p != nil {
				return p, f
			}
		}
	}
	return d.facts.prop(d.sh, name)
}

// shapeFacts are tables built at load time for what extras looks up in a
// shape for each object: the members of Props as parallel slices (for a
// few, a scan beats hashing the name), and, when the variants are told
// apart by one tag member with string values, the variant of each value.
type shapeFacts struct {
	names []string
	props []*schemamodel.Prop
	// kids are the facts of props' shapes, items of sh.Items.
	kids  []*shapeFacts
	items *shapeFacts
	// variants are the facts of sh.Variants' shapes, in order, values of
	// sh.Values: a lookup of the table per object cost a tenth of a check.
	variants []*shapeFacts
	values   *shapeFacts
	// required are the names of the required members of sh.Props, for
	// hasRequired, which ranging over the map made slow.
	required []string
	// quiet says extras finds nothing in any value of sh outside subtrees
	// with errors: most members are scalars of no open enum, and their
	// walk is skipped.
	quiet bool
	tag   string
	// byTag is the index in sh.Variants of the variant of each tag value.
	byTag *tagIndex[int]
}

// variantFacts are the facts of variant i's shape; nil when f has none.
func (f *shapeFacts) variantFacts(i int) *shapeFacts {
	if f == nil || f.variants == nil {
		return nil
	}
	return f.variants[i]
}

// valuesFacts are the facts of sh.Values' shape; nil when f has none.
func (f *shapeFacts) valuesFacts() *shapeFacts {
	if f == nil {
		return nil
	}
	return f.values
}

// prop is sh.Props[name], sh being the shape of f (nil when it has none),
// and the facts of its shape when f holds them.
func (f *shapeFacts) prop(sh *schemamodel.Shape, name string) (*schemamodel.Prop, *shapeFacts) {
	if f == nil || f.names == nil {
		return sh.Props[name], nil
	}
	for i, k := range f.names {
		if k == name {
			return f.props[i], f.kids[i]
		}
	}
	return nil, nil
}

// addFacts builds the facts of sh and of the shapes under it.
func (c *Checker) addFacts(sh *schemamodel.Shape) {
	if sh == nil {
		return
	}
	if _, done := c.facts[sh]; done {
		return
	}
	f := &shapeFacts{quiet: !sh.Cycle && sh.Types&schemamodel.TypeObject == 0 && sh.Items == nil && (sh.Enum == nil || !sh.Open)}
	c.facts[sh] = f
	if len(sh.Props) <= propScan {
		f.names = scanOrder(sh.Props, func(name string) bool { return sh.Props[name].Required })
		for _, name := range f.names {
			f.props = append(f.props, sh.Props[name])
		}
	}
	f.tag, f.byTag = variantsByTag(sh.Variants)
	for name, p := range sh.Props {
		if p.Required {
			f.required = append(f.required, name)
		}
		c.addFacts(p.Shape)
	}
	c.addFacts(sh.Items)
	// The facts of a shape are made before those under it (a shape may
	// hold itself), so the links to them are made after.
	for _, p := range f.props {
		f.kids = append(f.kids, c.facts[p.Shape])
	}
	if sh.Items != nil {
		f.items = c.facts[sh.Items]
	}
	c.addFacts(sh.Values)
	for _, v := range sh.Variants {
		c.addFacts(v.Shape)
	}
	if sh.Values != nil {
		f.values = c.facts[sh.Values]
	}
	for _, v := range sh.Variants {
		f.variants = append(f.variants, c.facts[v.Shape])
	}
}

// variantsByTag indexes the tagged variants (not the catch-all) by the
// string their tag holds, the first of each value as declared's walk of
// them finds it; nil unless they all share one tag whose values are JSON
// strings without escapes (which compare as their text between quotes).
func variantsByTag(vs []*schemamodel.Variant) (string, *tagIndex[int]) {
	tag := ""
	by := map[string]int{}
	for i, v := range vs {
		if v.Tag == "" || v.CatchAll {
			continue
		}
		t := v.TagValue
		if (tag != "" && v.Tag != tag) || len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' || strings.ContainsRune(t, '\\') {
			return "", nil
		}
		tag = v.Tag
		if _, seen := by[t[1:len(t)-1]]; !seen {
			by[t[1:len(t)-1]] = i
		}
	}
	if tag == "" {
		return "", nil
	}
	return tag, newTagIndex(by)
}

// hasRequired says whether obj has every required member of sh, whose
// facts f are (nil when there are none).
func hasRequired(sh *schemamodel.Shape, f *shapeFacts, obj *jsonv.Value) bool {
	if f != nil {
		for _, name := range f.required {
			if member(obj, name) == nil {
				return false
			}
		}
		return true
	}
	for name, p := range sh.Props {
		if p.Required && member(obj, name) == nil {
			return false
		}
	}
	return true
}

func knownTags(sh *schemamodel.Shape, name string) []string {
	var out []string
	for _, v := range sh.Variants {
		if v.Tag == name && !v.CatchAll {
			out = append(out, v.TagValue)
		}
	}
	return out
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(jsonv.EscapeToken(tok))
	}
	return b.String()
}

func last(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return loc[len(loc)-1]
}
