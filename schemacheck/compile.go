// Package schemacheck checks ACP params and results against a schema file
// in the upstream format (lint --schema) in one pass over each value, with
// tables built when the schema is loaded: every schema object of the file
// becomes a node of a graph ($ref followed, keywords parsed, numbers and
// constants decoded, the discriminator of each union found), so checking a
// message is a walk of that graph along the value, without a generic JSON
// Schema validator and without building an interface{} tree.
//
// It reports exactly what acplint reported when --schema ran such a
// validator (santhosh-tekuri/jsonschema, now the oracle of this package's
// tests): the validator's errors, as its error tree would have been
// mapped onto codec problems, and the shape walk of package schemamodel for
// what JSON Schema accepts but the protocol flags (unknown members, values
// of open enums). A value that is valid, the common case, costs one walk
// that stops at no union branch the value's tag rules out; the error tree
// is only built for a value that fails.
package schemacheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// Checker checks values against the message definitions of one schema. It
// is safe for concurrent use.
type Checker struct {
	model *schemamodel.Schema
	roots map[schemamodel.Key]root
	runs  sync.Pool // *run, for its arena and scratch space
	// scalarAlias holds the definitions that are plain aliases of a
	// scalar type (ProtocolVersion, SessionId), resolved at load time:
	// shapes are built lazily, and checks run concurrently.
	scalarAlias map[string]bool
	// facts are the tables of the shapes of the messages (extras' walk),
	// built at load time, read-only after; a shape without is looked up
	// as it is.
	facts map[*schemamodel.Shape]*shapeFacts
}

// types is a set of JSON types in the validator's terms, where integer is
// a type of its own (a number with an integral value).
type types uint8

const (
	tNull types = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// typeOrder is the order the validator lists wanted types in.
var typeOrder = []struct {
	t    types
	name string
}{
	{tNull, "null"}, {tBoolean, "boolean"}, {tNumber, "number"}, {tInteger, "integer"},
	{tString, "string"}, {tArray, "array"}, {tObject, "object"},
}

func typeNamed(name string) types {
	for _, tn := range typeOrder {
		if tn.name == name {
			return tn.t
		}
	}
	return 0
}

func (t types) names() []string {
	var out []string
	for _, tn := range typeOrder {
		if t&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}

// additional is what additionalProperties says of undeclared members.
type additional uint8

const (
	addAny    additional = iota // absent or true
	addNone                     // false
	addSchema                   // a schema for each
)

// node is one compiled schema object.
type node struct {
	// has says which groups of keywords n sets, so that valid reads one
	// word instead of a field of each group, spread over the node's
	// cache lines; with alias, typeOnly and types first, a node that
	// sets few keywords costs valid a line or two of memory.
	has keywords
	// alias is what valid checks instead of a node that asserts nothing
	// but one other schema ($ref, or an allOf of one): a third of the
	// nodes of the ACP schema are such wrappers. nil otherwise.
	alias *node
	// typeOnly says n asserts its type and nothing else ({"type":
	// "string"}), the commonest leaf, which valid answers at once.
	typeOnly bool
	types    types // 0: no type keyword

	ptr string // its JSON Pointer in the file
	def string // the innermost $defs entry of ptr, as the validator's URL names it
	raw map[string]any

	// never is the false schema. A true schema is a node with no keyword.
	never bool

	hasConst bool
	constVal any
	enum     []any
	enumOf   types // the types of the enum's values

	ref *node

	required []string
	props    map[string]*node
	// propNames and propNodes are props as parallel slices, for prop's
	// scan of small objects: comparing a few names beats hashing one.
	propNames []string
	propNodes []*node
	// With propNames, valid counts the required members as it meets
	// them in its walk of the members rather than looking each one up:
	// propRequired says which of propNames are required (reqScanned of
	// them), and reqUnscanned lists the required names props lacks.
	propRequired []bool
	reqScanned   int
	reqUnscanned []string
	addl         additional
	addlNode     *node
	items        *node

	allOf, anyOf, oneOf []*node
	not                 *node
	// anyTags and oneTags are the discriminator of each branch of anyOf
	// and oneOf: what a value must carry for the branch to be able to
	// match, so that a valid check skips the others.
	anyTags, oneTags []tagNeed
	// anyFacts and oneFacts are what the report reads of each branch's
	// schema when the union fails, one per member of the keyword's array.
	anyFacts, oneFacts []branchFacts
	// anyTag and oneTag name the member every tagged branch of anyOf and
	// oneOf is told apart by, when they agree ("" otherwise): valid then
	// looks it up once, not once per branch.
	anyTag, oneTag string
	// anyByTag and oneByTag, with anyTag and oneTag, are the branches
	// that a value whose tag is a string may match, by its text: those
	// tagged with it, and the untagged ones, in order (anyOpen and
	// oneOpen: the untagged alone, for any other tag).
	anyByTag, oneByTag *tagIndex[[]int]
	anyOpen, oneOpen   []int

	minimum, maximum, exclusiveMinimum, exclusiveMaximum *bound
	minLength, maxLength, minItems, maxItems             int // -1: unset
	minProps, maxProps                                   int
	pattern                                              *regexp.Regexp
}

// tagNeed is a member a branch requires with a constant string value; name
// "" when the branch has none.
type tagNeed struct{ name, value string }

// propScan is the most properties prop finds by scanning rather than by
// the map.
const propScan = 16

// prop returns the schema of property name; nil when n declares none.
func (n *node) prop(name string) *node {
	if n.propNames == nil {
		return n.props[name]
	}
	for i, k := range n.propNames {
		if k == name {
			return n.propNodes[i]
		}
	}
	return nil
}

// annotations are keywords that assert nothing (or that the validator, as
// acplint configured it, does not assert: format and content).
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "$defs": true, "definitions": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"format": true, "contentEncoding": true, "contentMediaType": true, "contentSchema": true,
	"discriminator": true, "$id": true, "$anchor": true, "$dynamicAnchor": true, "$vocabulary": true,
	"additionalItems": true, // not a keyword of draft 2020-12
}

// handled are the keywords the checker implements.
var handled = map[string]bool{
	"type": true, "const": true, "enum": true, "$ref": true, "required": true, "properties": true,
	"additionalProperties": true, "items": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "pattern": true, "unevaluatedProperties": true,
}

// unsupported are the JSON Schema keywords that assert something the
// checker does not implement: a schema that uses one is refused rather
// than checked wrongly.
var unsupported = []string{
	"patternProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
	"prefixItems", "contains", "minContains", "maxContains", "uniqueItems", "if", "then", "else",
	"unevaluatedItems", "$dynamicRef", "$recursiveRef", "multipleOf",
}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

type compiler struct {
	m     *schemamodel.Schema
	nodes map[string]*node // by pointer
}

// root is the checker of one message definition, with the definition, so
// that a check looks the key up once.
type root struct {
	key  schemamodel.Key
	node *node
	msg  *schemamodel.Message
	// facts are the tables of msg.Shape, where extras starts.
	facts *shapeFacts
}

// Compile builds the checker of every message definition of m. It fails
// on a schema it cannot check exactly: another JSON Schema draft, a keyword
// it does not implement, a reference that is not a JSON Pointer into the
// file, a malformed keyword, or references that loop without descending
// into the value.
func Compile(m *schemamodel.Schema) (*Checker, error) {
	if s, ok := m.Doc["$schema"]; ok {
		if u, _ := s.(string); strings.TrimSuffix(u, "#") != draft2020 {
			return nil, fmt.Errorf("%s: $schema %v: only JSON Schema draft 2020-12 is supported", m.File, s)
		}
	}
	c := &compiler{m: m, nodes: map[string]*node{}}
	ck := &Checker{model: m, roots: map[schemamodel.Key]root{}, scalarAlias: map[string]bool{}, facts: map[*schemamodel.Shape]*shapeFacts{}}
	for name := range m.Defs {
		if sh := m.DefShape(name); sh != nil && isScalarAlias(sh) {
			ck.scalarAlias[name] = true
		}
	}
	keys := make([]schemamodel.Key, 0, len(m.Messages))
	for k := range m.Messages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		msg := m.Messages[k]
		n, err := c.node("/$defs/" + jsonv.EscapeToken(msg.Def))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.File, err)
		}
		ck.addFacts(msg.Shape)
		ck.roots[k] = root{k, n, msg, ck.facts[msg.Shape]}
	}
	if err := c.checkLoops(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	for _, n := range c.nodes {
		n.alias = aliasOf(n)
		n.typeOnly = typeOnlyOf(n)
		n.has = keywordsOf(n)
		n.splitRequired()
		n.anyTags = c.tags(n.anyOf)
		n.oneTags = c.tags(n.oneOf)
		n.anyFacts = unionFacts(m, n.raw["anyOf"])
		n.oneFacts = unionFacts(m, n.raw["oneOf"])
		n.anyTag, n.oneTag = sharedTag(n.anyTags), sharedTag(n.oneTags)
		if n.anyTag != "" {
			n.anyByTag, n.anyOpen = byTag(n.anyTags)
		}
		if n.oneTag != "" {
			n.oneByTag, n.oneOpen = byTag(n.oneTags)
		}
	}
	return ck, nil
}

// lookup resolves a JSON Pointer in the document.
func (c *compiler) lookup(ptr string) (any, bool) {
	var cur any = c.m.Doc
	if ptr == "" {
		return cur, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonv.UnescapeToken(tok)
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i := 0
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(x) || fmt.Sprint(i) != tok {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// node compiles the schema object at ptr once.
func (c *compiler) node(ptr string) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	raw, ok := c.lookup(ptr)
	if !ok {
		return nil, fmt.Errorf("%s: no schema there", ptr)
	}
	n := &node{ptr: ptr, def: defOf(ptr), minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	c.nodes[ptr] = n
	switch x := raw.(type) {
	case bool:
		n.never = !x
		return n, nil
	case map[string]any:
		n.raw = x
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %s", ptr, jsonText(raw))
	}
	if err := c.fill(n); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *compiler) fill(n *node) error {
	x, ptr := n.raw, n.ptr
	for _, kw := range unsupported {
		if _, ok := x[kw]; ok {
			return fmt.Errorf("%s/%s: keyword %q is not supported by --schema", ptr, kw, kw)
		}
	}
	if id, ok := x["$id"]; ok && ptr != "" {
		return fmt.Errorf("%s/$id: %s: an $id inside the file changes what its refs point to; --schema resolves refs against the file alone", ptr, jsonText(id))
	}
	sub := func(kw string) (*node, error) { return c.node(ptr + "/" + jsonv.EscapeToken(kw)) }
	list := func(kw string) ([]*node, error) {
		arr, ok := x[kw].([]any)
		if !ok || len(arr) == 0 {
			return nil, fmt.Errorf("%s/%s: want a non-empty array of schemas", ptr, kw)
		}
		out := make([]*node, len(arr))
		for i := range arr {
			s, err := c.node(fmt.Sprintf("%s/%s/%d", ptr, kw, i))
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	var err error
	if t, ok := x["type"]; ok {
		switch tv := t.(type) {
		case string:
			n.types = typeNamed(tv)
			if n.types == 0 {
				return fmt.Errorf("%s/type: unknown type %q", ptr, tv)
			}
		case []any:
			for _, e := range tv {
				s, _ := e.(string)
				if typeNamed(s) == 0 {
					return fmt.Errorf("%s/type: unknown type %s", ptr, jsonText(e))
				}
				n.types |= typeNamed(s)
			}
		default:
			return fmt.Errorf("%s/type: want a string or an array of strings", ptr)
		}
	}
	if v, ok := x["const"]; ok {
		n.hasConst, n.constVal = true, v
	}
	if e, ok := x["enum"]; ok {
		arr, isArr := e.([]any)
		if !isArr {
			return fmt.Errorf("%s/enum: want an array", ptr)
		}
		n.enum = arr
		if n.enum == nil {
			n.enum = []any{}
		}
		for _, v := range arr {
			n.enumOf |= typeOfAny(v)
		}
	}
	if r, ok := x["$ref"]; ok {
		ref, _ := r.(string)
		target, local := strings.CutPrefix(ref, "#")
		if !local || (target != "" && target[0] != '/') {
			return fmt.Errorf("%s/$ref: reference %q: --schema resolves only JSON Pointers into the file (\"#/…\")", ptr, ref)
		}
		target, err := unescapeFragment(target)
		if err != nil {
			return fmt.Errorf("%s/$ref: reference %q: %v", ptr, ref, err)
		}
		if n.ref, err = c.node(target); err != nil {
			return fmt.Errorf("%s/$ref: reference %q: %w", ptr, ref, err)
		}
	}
	if r, ok := x["required"]; ok {
		arr, isArr := r.([]any)
		if !isArr {
			return fmt.Errorf("%s/required: want an array of strings", ptr)
		}
		for _, e := range arr {
			s, isStr := e.(string)
			if !isStr {
				return fmt.Errorf("%s/required: want an array of strings", ptr)
			}
			n.required = append(n.required, s)
		}
	}
	if p, ok := x["properties"]; ok {
		props, isObj := p.(map[string]any)
		if !isObj {
			return fmt.Errorf("%s/properties: want an object", ptr)
		}
		n.props = make(map[string]*node, len(props))
		for name := range props {
			if n.props[name], err = c.node(ptr + "/properties/" + jsonv.EscapeToken(name)); err != nil {
				return err
			}
		}
		if len(props) <= propScan {
			n.propNames = scanOrder(n.props, func(name string) bool { return slices.Contains(n.required, name) })
			for _, name := range n.propNames {
				n.propNodes = append(n.propNodes, n.props[name])
			}
		}
	}
	switch ap := x["additionalProperties"].(type) {
	case nil:
	case bool:
		if !ap {
			n.addl = addNone
		}
	case map[string]any:
		n.addl = addSchema
		if n.addlNode, err = sub("additionalProperties"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s/additionalProperties: want a schema", ptr)
	}
	if u, ok := x["unevaluatedProperties"]; ok && u != true {
		return fmt.Errorf("%s/unevaluatedProperties: only true is supported by --schema", ptr)
	}
	if _, ok := x["items"]; ok {
		if n.items, err = sub("items"); err != nil {
			return err
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if _, ok := x[kw]; !ok {
			continue
		}
		l, err := list(kw)
		if err != nil {
			return err
		}
		switch kw {
		case "allOf":
			n.allOf = l
		case "anyOf":
			n.anyOf = l
		default:
			n.oneOf = l
		}
	}
	if _, ok := x["not"]; ok {
		if n.not, err = sub("not"); err != nil {
			return err
		}
	}
	for _, b := range []struct {
		kw  string
		dst **bound
	}{{"minimum", &n.minimum}, {"maximum", &n.maximum}, {"exclusiveMinimum", &n.exclusiveMinimum}, {"exclusiveMaximum", &n.exclusiveMaximum}} {
		v, ok := x[b.kw]
		if !ok {
			continue
		}
		num, isNum := v.(json.Number)
		if !isNum {
			return fmt.Errorf("%s/%s: want a number", ptr, b.kw)
		}
		bd, ok := newBound(string(num))
		if !ok {
			return fmt.Errorf("%s/%s: %s is not a number --schema can compare with", ptr, b.kw, num)
		}
		*b.dst = bd
	}
	for _, l := range []struct {
		kw  string
		dst *int
	}{{"minLength", &n.minLength}, {"maxLength", &n.maxLength}, {"minItems", &n.minItems}, {"maxItems", &n.maxItems},
		{"minProperties", &n.minProps}, {"maxProperties", &n.maxProps}} {
		v, ok := x[l.kw]
		if !ok {
			continue
		}
		num, isNum := v.(json.Number)
		i, err := num.Int64()
		if !isNum || err != nil || i < 0 || i > 1<<31 {
			return fmt.Errorf("%s/%s: want a non-negative integer", ptr, l.kw)
		}
		*l.dst = int(i)
	}
	if p, ok := x["pattern"]; ok {
		s, isStr := p.(string)
		if !isStr {
			return fmt.Errorf("%s/pattern: want a string", ptr)
		}
		if n.pattern, err = regexp.Compile(s); err != nil {
			return fmt.Errorf("%s/pattern: %v", ptr, err)
		}
	}
	return nil
}

// scanOrder lists the names of props in the order a scan for a member
// looks through them: the required first, which every value carries, and
// by name within each group. Map order made the cost of the scans change
// from one run to the next.
func scanOrder[P any](props map[string]P, required func(string) bool) []string {
	names := slices.Collect(maps.Keys(props))
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := required(a), required(b); ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// unescapeFragment undoes the URL escaping of a fragment, as the
// validator's URLs did (url.PathUnescape: "+" stays "+").
func unescapeFragment(frag string) (string, error) {
	out, err := url.PathUnescape(frag)
	if err != nil {
		return "", fmt.Errorf("bad %%-escape")
	}
	return out, nil
}

// checkLoops fails when a node reaches itself through keywords that apply
// to the same value ($ref, allOf, anyOf, oneOf, not): checking such a
// schema would never descend, and the validator reported it as a cycle.
func (c *compiler) checkLoops() error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return fmt.Errorf("%s: the schema applies itself to the same value without end", n.ptr)
		case done:
			return nil
		}
		state[n] = active
		next := slices.Concat(n.allOf, n.anyOf, n.oneOf)
		if n.ref != nil {
			next = append(next, n.ref)
		}
		if n.not != nil {
			next = append(next, n.not)
		}
		for _, m := range next {
			if err := visit(m); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	ptrs := make([]string, 0, len(c.nodes))
	for p := range c.nodes {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		if err := visit(c.nodes[p]); err != nil {
			return err
		}
	}
	return nil
}

// splitRequired fills the fields by which valid finds the required members
// in its walk of an object's members (propRequired, reqScanned,
// reqUnscanned); without propNames, valid looks them up.
func (n *node) splitRequired() {
	if n.propNames == nil || n.required == nil {
		return
	}
	n.propRequired = make([]bool, len(n.propNames))
	for _, name := range n.required {
		if i := slices.Index(n.propNames, name); i >= 0 {
			if !n.propRequired[i] {
				n.propRequired[i] = true
				n.reqScanned++
			}
		} else if !slices.Contains(n.reqUnscanned, name) {
			n.reqUnscanned = append(n.reqUnscanned, name)
		}
	}
}

// aliasOf returns the node valid may check in n's place (nil: n itself),
// following wrappers to the first node that asserts something. checkLoops
// has ruled out wrappers that lead back to themselves.
func aliasOf(n *node) *node {
	var target *node
	switch {
	case n.ref != nil && n.allOf == nil:
		target = n.ref
	case n.ref == nil && len(n.allOf) == 1:
		target = n.allOf[0]
	default:
		return nil
	}
	if n.types != 0 || n.assertsBesidesType() {
		return nil
	}
	if a := aliasOf(target); a != nil {
		return a
	}
	return target
}

// keywords is a set of groups of the keywords a node sets.
type keywords uint16

const (
	kwNever keywords = 1 << iota
	kwConst
	kwEnum
	kwRef
	kwObject // minProperties, maxProperties, required, properties, additionalProperties
	kwArray  // minItems, maxItems, items
	kwString // minLength, maxLength, pattern
	kwNumber // minimum, maximum, exclusiveMinimum, exclusiveMaximum
	kwNot
	kwAllOf
	kwAnyOf
	kwOneOf
	// kwSameValue are the keywords that apply other schemas to the value
	// itself, which share its dedup.
	kwSameValue = kwRef | kwNot | kwAllOf | kwAnyOf | kwOneOf
)

// keywordsOf is the set of keyword groups n sets.
func keywordsOf(n *node) keywords {
	var k keywords
	set := func(cond bool, bit keywords) {
		if cond {
			k |= bit
		}
	}
	set(n.never, kwNever)
	set(n.hasConst, kwConst)
	set(n.enum != nil, kwEnum)
	set(n.ref != nil, kwRef)
	set(n.minProps >= 0 || n.maxProps >= 0 || n.required != nil || n.props != nil || n.addl != addAny, kwObject)
	set(n.minItems >= 0 || n.maxItems >= 0 || n.items != nil, kwArray)
	set(n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil, kwString)
	set(n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil, kwNumber)
	set(n.not != nil, kwNot)
	set(n.allOf != nil, kwAllOf)
	set(n.anyOf != nil, kwAnyOf)
	set(n.oneOf != nil, kwOneOf)
	return k
}

// typeOnlyOf says whether n asserts its type and nothing else.
func typeOnlyOf(n *node) bool {
	return n.types != 0 && n.ref == nil && n.allOf == nil && !n.assertsBesidesType()
}

// assertsBesidesType says whether n asserts anything but its type, $ref
// and allOf aside.
func (n *node) assertsBesidesType() bool {
	return n.never || n.hasConst || n.enum != nil || n.required != nil || n.props != nil ||
		n.addl != addAny || n.items != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil ||
		n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil ||
		n.minLength >= 0 || n.maxLength >= 0 || n.minItems >= 0 || n.maxItems >= 0 ||
		n.minProps >= 0 || n.maxProps >= 0 || n.pattern != nil
}

// sharedTag is the member name of every tag of ts; "" when they name
// different members, or none does.
func sharedTag(ts []tagNeed) string {
	name := ""
	for _, t := range ts {
		switch {
		case t.name == "":
		case name == "":
			name = t.name
		case t.name != name:
			return ""
		}
	}
	return name
}

// byTag indexes the branches of a union whose tagged branches share one
// tag member (tags) by the value of that member: the branches each value
// may match, and those any other value may match (the untagged ones).
func byTag(tags []tagNeed) (*tagIndex[[]int], []int) {
	var open []int
	for i, t := range tags {
		if t.name == "" {
			open = append(open, i)
		}
	}
	by := map[string][]int{}
	for _, t := range tags {
		if t.name == "" || by[t.value] != nil {
			continue
		}
		var cands []int
		for j, u := range tags {
			if u.name == "" || u.value == t.value {
				cands = append(cands, j)
			}
		}
		by[t.value] = cands
	}
	return newTagIndex(by), open
}

// tags finds, for each branch of a union, a member the branch requires
// with a constant string value (directly or through $ref and allOf): a
// value that lacks it, or carries another value, cannot match the branch.
func (c *compiler) tags(branches []*node) []tagNeed {
	if branches == nil {
		return nil
	}
	out := make([]tagNeed, len(branches))
	for i, b := range branches {
		out[i] = need(b, 0)
	}
	return out
}

func need(n *node, depth int) tagNeed {
	if n == nil || depth > 8 {
		return tagNeed{}
	}
	for _, name := range n.required {
		if p := n.prop(name); p != nil {
			if s, ok := p.constVal.(string); ok && p.hasConst {
				return tagNeed{name: name, value: s}
			}
		}
	}
	// A required member and its constant may sit in different schemas
	// that all apply: look for both through $ref and allOf.
	for _, m := range append([]*node{n.ref}, n.allOf...) {
		if t := need(m, depth+1); t.name != "" {
			return t
		}
	}
	return tagNeed{}
}

// defOf names the innermost $defs entry of a pointer, as the validator's
// schema URLs named it.
func defOf(ptr string) string {
	i := strings.LastIndex(ptr, "/$defs/")
	if i < 0 {
		return ""
	}
	name := ptr[i+len("/$defs/"):]
	if j := strings.IndexByte(name, '/'); j >= 0 {
		name = name[:j]
	}
	return name
}

func typeOfAny(v any) types {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case json.Number, float64:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}
