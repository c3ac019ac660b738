package lint

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
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// Schema is a version of the ACP schema to check params and results
// against instead of the one compiled into acplint (acplint lint --schema).
// The compiled codec stays the fast default; this path validates each
// message with a JSON Schema validator against its own method's $def
// (never the schema root, whose extension definitions admit anything), and
// walks the resolved shapes of package schemamodel for what JSON Schema does
// not reject: unknown members and values of open enums.
type Schema struct {
	model *schemamodel.Schema
	defs  map[schemamodel.Key]*jsonschema.Schema
}

// LoadSchema reads and compiles a schema file in the upstream format. It
// resolves only references inside the file ("#/$defs/…"): a schema is
// input, and must not make acplint read other files or the network.
func LoadSchema(file string) (*Schema, error) {
	m, err := schemamodel.LoadFile(file, schemamodel.Options{})
	if err != nil {
		return nil, err
	}
	return CompileSchema(m)
}

// schemaURL is the base URL the validator knows the document by; only
// fragments of it ever appear, and they are turned into JSON Pointers.
const schemaURL = "acplint:schema.json"

// CompileSchema compiles a loaded schema for validation.
func CompileSchema(m *schemamodel.Schema) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.Raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	if err := checkLocalRefs(m); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	// The validator's default loader reads file:// URLs; a schema file
	// from an SDK package must not make acplint read (and echo in errors)
	// other local files, nor fetch anything. checkLocalRefs names the
	// offending ref; this loader covers what it cannot see, such as a
	// "#/…" ref made remote by an "$id" base.
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	s := &Schema{model: m, defs: map[schemamodel.Key]*jsonschema.Schema{}}
	for k, msg := range m.Messages {
		sch, err := c.Compile(schemaURL + "#/$defs/" + url.PathEscape(msg.Def))
		if err != nil {
			return nil, fmt.Errorf("%s: $defs/%s: %w", m.File, msg.Def, err)
		}
		s.defs[k] = sch
	}
	return s, nil
}

// refusingLoader loads nothing: --schema resolves only refs inside the file.
type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("not loading %s: --schema resolves only refs inside the file (\"#/…\")", u)
}

// refKeywords are the keywords whose value is a URI reference to another
// schema.
var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}

// dataKeywords hold instance values, not schemas: a {"$ref":…} inside an
// enum or a default is data, never resolved.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkLocalRefs fails on the first reference in m that leaves the file,
// naming it with its JSON Pointer and line. Only fragment references
// ("#/$defs/…", "#anchor") are resolved.
func checkLocalRefs(m *schemamodel.Schema) error {
	var first, firstPtr string
	outside := 0
	var walk func(node any, ptr jsonv.Pointer)
	walk = func(node any, ptr jsonv.Pointer) {
		switch n := node.(type) {
		case map[string]any:
			for _, kw := range refKeywords {
				if ref, ok := n[kw].(string); ok && !strings.HasPrefix(ref, "#") {
					if outside == 0 {
						first, firstPtr = ref, string(ptr.Key(kw))
					}
					outside++
				}
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				if !dataKeywords[k] {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys) // the same ref is reported first every time
			for _, k := range keys {
				walk(n[k], ptr.Key(k))
			}
		case []any:
			for i, e := range n {
				walk(e, ptr.Index(i))
			}
		}
	}
	walk(m.Doc, "")
	if outside == 0 {
		return nil
	}
	more := ""
	if outside > 1 {
		more = fmt.Sprintf(" (and %d more refs outside the file)", outside-1)
	}
	return fmt.Errorf("%s:%d: %s: reference %q points outside the file; --schema resolves only refs inside it (\"#/…\")%s",
		m.File, m.Line(firstPtr), firstPtr, first, more)
}

// File is the schema file as it was named.
func (s *Schema) File() string { return s.model.File }

// schemaKinds are the codec problems that depend on the schema version;
// with --schema they come from the given schema instead: the shapes from
// validation, and where "_meta" must be an object from its declarations
// (schemafacts.go). Envelope and duplicate-member problems do not depend
// on it.
var schemaKinds = map[codec.ProblemKind]bool{
	codec.ProbMissing: true, codec.ProbType: true, codec.ProbRange: true, codec.ProbEnum: true,
	codec.ProbOpenEnum: true, codec.ProbUnknownVariant: true, codec.ProbUnknownMember: true,
	codec.ProbNullResult: true, codec.ProbMeta: true,
}

// schemaProblems is the --schema hook of the driver: for message i of d it
// drops the compiled-in schema problems of the params or result and adds
// those of l.schema. Without --schema it returns its arguments unchanged.
// (Whether l.schema defines the method at all is the protocol machine's
// question, asked of the schema's method table: Event.Methods.)
func (l *linter) schemaProblems(d *codec.Decoded, i int, m *domain.Message, msgProbs, resultProbs []codec.Problem) (_, _ []codec.Problem) {
	if l.schema == nil || m.Method == "" || m.Method.IsExtension() {
		return msgProbs, resultProbs
	}
	var key schemamodel.Key
	var raw json.RawMessage
	switch m.Kind {
	case domain.KindRequest:
		key, raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindRequest}, m.RawParams
	case domain.KindNotification:
		key, raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindNotification}, m.RawParams
	case domain.KindResult:
		key, raw = schemamodel.Key{Method: string(m.Method), Kind: schemamodel.KindResponse}, m.RawResult
	default:
		return msgProbs, resultProbs
	}
	prefix := ""
	if len(d.Msgs) > 1 || isBatchLine(d) {
		prefix = "/" + strconv.Itoa(i)
	}
	member := "params"
	if key.Kind == schemamodel.KindResponse {
		member = "result"
	}
	base := prefix + "/" + member
	msgProbs = dropSchemaProblems(msgProbs, base)
	resultProbs = dropSchemaProblems(resultProbs, base)

	sch := l.schema.defs[key]
	if sch == nil {
		return msgProbs, resultProbs
	}
	probs := l.schema.validate(key, raw, base)
	if metas := l.schema.metaProblems(l.schema.model.Message(key.Method, key.Kind), raw, base); len(metas) > 0 {
		probs = append(probs, metas...)
		sort.SliceStable(probs, func(i, j int) bool { return probs[i].Pointer < probs[j].Pointer })
	}
	if key.Kind == schemamodel.KindResponse {
		return msgProbs, append(resultProbs, probs...)
	}
	return append(msgProbs, probs...), resultProbs
}

func dropSchemaProblems(ps []codec.Problem, base string) []codec.Problem {
	out := ps[:0:0]
	for _, p := range ps {
		if schemaKinds[p.Kind] && (p.Pointer == base || strings.HasPrefix(p.Pointer, base+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// validate checks one params or result value (raw; nil when absent)
// against the $def of key, returning problems with pointers under base.
func (s *Schema) validate(key schemamodel.Key, raw json.RawMessage, base string) []codec.Problem {
	msg := s.model.Message(key.Method, key.Kind)
	var inst any = map[string]any{} // absent params read as {}, as the codec does
	if raw != nil {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil // the codec reports lines that are not JSON
		}
		inst = v
	}
	r := &validation{s: s, root: inst, base: base, def: msg.Def, key: key}
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
	sort.SliceStable(r.probs, func(i, j int) bool { return r.probs[i].Pointer < r.probs[j].Pointer })
	return r.probs
}

type validation struct {
	s     *Schema
	key   schemamodel.Key
	root  any
	base  string
	def   string
	probs []codec.Problem
	bad   [][]string // instance locations with a validation error
}

var english = message.NewPrinter(language.English)

func (r *validation) add(loc []string, p codec.Problem) {
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
func (r *validation) walk(e *jsonschema.ValidationError) {
	def := defOf(e.SchemaURL, r.def)
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
			Detail: fmt.Sprintf("%s is out of range: %s", short(v), e.ErrorKind.LocalizedString(english))})
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
			Detail: fmt.Sprintf("%s is invalid: %s", short(v), e.ErrorKind.LocalizedString(english))})
	}
}

func isScalarAlias(sh *schemamodel.Shape) bool {
	return sh.Enum == nil && sh.Variants == nil && sh.Props == nil && sh.Types&schemamodel.TypeObject == 0
}

// objectDef names the definition of the object at loc, following the
// resolved shapes (and the variants the value selects) from the root.
func (r *validation) objectDef(loc []string) string {
	sh := r.s.model.Message(r.key.Method, r.key.Kind).Shape
	for i := 0; ; i++ {
		if sh == nil {
			return ""
		}
		v := r.at(loc[:i])
		var props map[string]*schemamodel.Prop
		def := sh.Def
		if obj, ok := v.(map[string]any); ok {
			props, def, _ = declared(sh, obj)
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
func (r *validation) union(e *jsonschema.ValidationError, def string) {
	loc := e.InstanceLocation
	v := r.at(loc)
	obj, isObj := v.(map[string]any)
	// The validator reports one cause per branch, in order, when none
	// matched; the branch schemas come from the union's own keyword.
	keyword := "anyOf"
	if _, ok := e.ErrorKind.(*kind.OneOf); ok {
		keyword = "oneOf"
	}
	unionNode, _ := r.s.node(e.SchemaURL).(map[string]any)
	members, _ := unionNode[keyword].([]any)
	var bs []*branch
	for i, c := range e.Causes {
		b := &branch{err: c, tags: map[string]tag{}}
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

// requiredMissing lists the members a failed branch says are missing on
// the union's own object (at depth), quoted.
func requiredMissing(e *jsonschema.ValidationError, depth int) []string {
	var out []string
	if k, ok := e.ErrorKind.(*kind.Required); ok && len(e.InstanceLocation) == depth {
		for _, m := range k.Missing {
			out = append(out, strconv.Quote(m))
		}
	}
	for _, c := range e.Causes {
		out = append(out, requiredMissing(c, depth)...)
	}
	return out
}

// branch is one member of a failed union, as the value sees it.
type branch struct {
	err *jsonschema.ValidationError
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

// node returns the schema object a validator schema URL points at.
func (s *Schema) node(u string) any {
	_, frag, _ := strings.Cut(u, "#")
	frag, _ = url.PathUnescape(frag)
	var toks []string
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok != "" {
			toks = append(toks, jsonv.UnescapeToken(tok))
		}
	}
	return descend(s.model.Doc, toks)
}

// at returns the instance value at loc.
func (r *validation) at(loc []string) any { return descend(r.root, loc) }

// descend follows object keys and array indexes from cur through a value
// decoded by encoding/json; nil when the path leaves the value.
func descend(cur any, toks []string) any {
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

// extras walks the value along the resolved shape for what validation
// accepts but the protocol still flags: members the schema does not
// declare (ACP-SCH-004 and its more specific rules) and values of open
// enums it does not list. Subtrees with validation errors are skipped.
func (r *validation) extras(sh *schemamodel.Shape, v any, loc []string) {
	if sh == nil || sh.Cycle || r.failedAt(loc) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		props, def, catchAll := declared(sh, x)
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

// declared returns the members an object may carry under sh: its own and
// those of the variant its tag selects (all untagged variants' when no tag
// decides), the definition that names them, and the catch-all variant
// when that is what the tag selected. props is nil for an object the
// schema leaves free.
func declared(sh *schemamodel.Shape, obj map[string]any) (props map[string]*schemamodel.Prop, def string, catchAll *schemamodel.Variant) {
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
			if hasRequired(v.Shape, obj) {
				chosen = []*schemamodel.Variant{v}
				break
			}
		}
		if chosen == nil {
			chosen = untagged
		}
	}
	if chosen == nil {
		return nil, def, nil // no variant fits: undecidable, and validation says why
	}
	for _, v := range chosen {
		inner, innerDef, _ := declared(v.Shape, obj)
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

func hasRequired(sh *schemamodel.Shape, obj map[string]any) bool {
	for name, p := range sh.Props {
		if _, has := obj[name]; p.Required && !has {
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

func (r *validation) failedAt(loc []string) bool {
	for _, b := range r.bad {
		if len(b) <= len(loc) && equalPrefix(b, loc) {
			return true
		}
	}
	return false
}

func equalPrefix(prefix, loc []string) bool {
	for i := range prefix {
		if prefix[i] != loc[i] {
			return false
		}
	}
	return true
}

// defOf names the innermost $defs entry of a validator schema URL.
func defOf(u, fallback string) string {
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

// jsonText renders a value canonically, as schemamodel renders constants.
func jsonText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return n.String()
	case *big.Rat:
		return n.RatString()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// short renders a value for a message, cut to a readable length.
func short(v any) string {
	s := jsonText(v)
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return s
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func wantTypes(ts []string) string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, article(t))
		}
	}
	return strings.Join(out, " or ")
}
