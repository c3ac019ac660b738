package schemacheck

import (
	"reflect"
	"testing"

	"github.com/acplint/acplint/schemamodel"
)

// aliasFields says, for each field of node, what aliasOf makes of it:
// "free" fields may be set on a node that valid replaces by its alias
// (where it sits, the one schema it applies), "derived" ones follow from
// another field, and "asserts" ones must keep the node from being an
// alias. A field added to node without an entry fails
// TestAliasesAssertNothing, so that aliasOf is looked at again.
var aliasFields = map[string]string{
	"ptr": "free", "def": "free", "raw": "free", "ref": "free", "allOf": "free", "alias": "free",
	"constVal": "derived", "enumOf": "derived", "propNames": "derived", "propNodes": "derived",
	"addlNode": "derived", "anyTags": "derived", "oneTags": "derived", "anyFacts": "derived", "oneFacts": "derived", "anyTag": "derived", "oneTag": "derived",
	"anyByTag": "derived", "oneByTag": "derived", "anyOpen": "derived", "oneOpen": "derived",
	"typeOnly": "derived", "has": "derived", "propRequired": "derived", "reqScanned": "derived", "reqUnscanned": "derived",
	"never": "asserts", "types": "asserts", "hasConst": "asserts", "enum": "asserts", "required": "asserts",
	"props": "asserts", "addl": "asserts", "items": "asserts", "anyOf": "asserts", "oneOf": "asserts",
	"not": "asserts", "minimum": "asserts", "maximum": "asserts", "exclusiveMinimum": "asserts",
	"exclusiveMaximum": "asserts", "minLength": "asserts", "maxLength": "asserts", "minItems": "asserts",
	"maxItems": "asserts", "minProps": "asserts", "maxProps": "asserts", "pattern": "asserts",
}

// TestAliasesAssertNothing guards aliasOf and typeOnlyOf: a node that
// valid replaces by its alias must assert nothing of its own, and one it
// answers by its type alone nothing else.
func TestAliasesAssertNothing(t *testing.T) {
	target := &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	rt := reflect.TypeOf(node{})
	for i := range rt.NumField() {
		name := rt.Field(i).Name
		role, known := aliasFields[name]
		if !known {
			t.Errorf("node.%s is new: say in aliasFields whether it asserts something, and if so make aliasOf refuse a node that sets it", name)
			continue
		}
		if role != "asserts" {
			continue
		}
		n := *target
		n.ref = target
		f := reflect.ValueOf(&n).Elem().Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int:
			f.SetInt(0) // unset is -1
		case reflect.Uint8:
			f.SetUint(1)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		default:
			t.Fatalf("node.%s: a %s; teach this test to set one", name, f.Kind())
		}
		if aliasOf(&n) != nil {
			t.Errorf("a node with %s set is taken for an alias of its $ref", name)
		}
		if name != "types" {
			n.ref, n.types = nil, tString
			if typeOnlyOf(&n) {
				t.Errorf("a node with %s set is taken for one that asserts its type alone", name)
			}
		}
	}
	if n := (node{ref: target, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}); aliasOf(&n) != target {
		t.Errorf("a node with a $ref alone is not an alias of its target")
	}
	if n := (node{types: tString, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}); !typeOnlyOf(&n) {
		t.Errorf(`{"type":"string"} is not taken for a node that asserts its type alone`)
	}
}

// TestAliasesFound checks that the reference schema's wrappers are found:
// without them valid walks a third more nodes.
func TestAliasesFound(t *testing.T) {
	m, err := schemamodel.LoadFile("../internal/reference/acp-schema.unstable.json", schemamodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ck, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*node]bool{}
	aliases := 0
	var visit func(n *node)
	visit = func(n *node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.alias != nil {
			aliases++
			if n.alias.alias != nil {
				t.Errorf("%s: its alias %s is an alias itself", n.ptr, n.alias.ptr)
			}
		}
		for _, c := range append([]*node{n.ref, n.addlNode, n.items, n.not}, append(append(n.allOf, n.anyOf...), n.oneOf...)...) {
			visit(c)
		}
		for _, c := range n.props {
			visit(c)
		}
	}
	for _, r := range ck.roots {
		visit(r.node)
	}
	if aliases < len(seen)/5 {
		t.Errorf("only %d aliases among %d nodes: aliasOf finds too few wrappers", aliases, len(seen))
	}
	t.Logf("%d aliases among %d nodes", aliases, len(seen))
}
