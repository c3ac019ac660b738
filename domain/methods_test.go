package domain

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/acplint/acplint/internal/reference"
)

// orderedKeys returns the members of a JSON object in document order.
func orderedKeys(t *testing.T, raw json.RawMessage) (keys []string, values []json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("want a JSON object, got %v (%v)", tok, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		values = append(values, v)
	}
	return keys, values
}

// TestMethodsMatchMeta checks Methods against the upstream method map:
// the same names, in the same order, implemented by the same side.
func TestMethodsMatchMeta(t *testing.T) {
	groups := []struct {
		key  string
		side Side
	}{
		{"agentMethods", SideAgent},
		{"clientMethods", SideClient},
		{"protocolMethods", SideEither},
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(reference.Meta, &top); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		name Method
		side Side
	}
	var want []entry
	for _, g := range groups {
		raw, ok := top[g.key]
		if !ok {
			t.Fatalf("acp-meta.json has no %q", g.key)
		}
		_, values := orderedKeys(t, raw)
		for _, v := range values {
			var name string
			if err := json.Unmarshal(v, &name); err != nil {
				t.Fatal(err)
			}
			want = append(want, entry{Method(name), g.side})
		}
	}
	var got []entry
	for _, mi := range Methods {
		got = append(got, entry{mi.Name, mi.Receiver})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Methods differ from acp-meta.json:\n got %v\nwant %v", got, want)
	}
	for _, mi := range Methods {
		if found, ok := LookupMethod(mi.Name); !ok || found != mi {
			t.Errorf("LookupMethod(%q) does not return its Methods entry", mi.Name)
		}
	}
}

type refDef struct {
	Required []string          `json:"required"`
	AnyOf    []json.RawMessage `json:"anyOf"`
	OneOf    []json.RawMessage `json:"oneOf"`
	XMethod  string            `json:"x-method"`
	XSide    string            `json:"x-side"`
}

// TestMethodDefs checks that ParamsDef and ResultDef name the upstream
// $defs of each method and that the constructors build those types.
func TestMethodDefs(t *testing.T) {
	var schema struct {
		Defs map[string]refDef `json:"$defs"`
	}
	if err := json.Unmarshal(reference.StableSchema, &schema); err != nil {
		t.Fatal(err)
	}
	byMethod := map[string][]string{}
	for name, d := range schema.Defs {
		if d.XMethod != "" {
			byMethod[d.XMethod] = append(byMethod[d.XMethod], name)
		}
	}
	sides := map[Side]string{SideAgent: "agent", SideClient: "client", SideEither: "protocol"}
	for _, mi := range Methods {
		name := string(mi.Name)
		check := func(what, def string, newValue func() any) refDef {
			d, ok := schema.Defs[def]
			if !ok {
				t.Errorf("%s: %s %q is not an upstream $def", name, what, def)
				return d
			}
			if d.XMethod != name {
				t.Errorf("%s: %s %q has x-method %q", name, what, def, d.XMethod)
			}
			if d.XSide != sides[mi.Receiver] {
				t.Errorf("%s: %s %q has x-side %q; Receiver is %v", name, what, def, d.XSide, mi.Receiver)
			}
			if newValue == nil {
				t.Errorf("%s: no constructor for %s", name, what)
				return d
			}
			v := reflect.TypeOf(newValue())
			if v.Kind() != reflect.Pointer || v.Elem().Name() != def {
				t.Errorf("%s: the %s constructor returns %v; want *%s", name, what, v, def)
			}
			return d
		}
		check("ParamsDef", mi.ParamsDef, mi.NewParams)
		defs := byMethod[name]
		if mi.Notification {
			if mi.ResultDef != "" || mi.NewResult != nil || mi.EmptyResult {
				t.Errorf("%s: a notification has no result", name)
			}
			if len(defs) != 1 {
				t.Errorf("%s: upstream has $defs %v for this notification; want only its params", name, defs)
			}
			if !strings.HasSuffix(mi.ParamsDef, "Notification") {
				t.Errorf("%s: notification params %q should be a …Notification $def", name, mi.ParamsDef)
			}
			continue
		}
		if len(defs) != 2 {
			t.Errorf("%s: upstream has $defs %v for this request; want params and result", name, defs)
		}
		if !strings.HasSuffix(mi.ResultDef, "Response") || !strings.HasSuffix(mi.ParamsDef, "Request") {
			t.Errorf("%s: want a …Request params and a …Response result, got %q and %q", name, mi.ParamsDef, mi.ResultDef)
		}
		r := check("ResultDef", mi.ResultDef, mi.NewResult)
		// An all-optional result: no required member, in the object
		// itself or in a union of shapes beside it.
		empty := len(r.Required) == 0 && r.AnyOf == nil && r.OneOf == nil
		if empty != mi.EmptyResult {
			t.Errorf("%s: EmptyResult is %v, but %s requires %v (union arms: %d)", name, mi.EmptyResult, mi.ResultDef, r.Required, len(r.AnyOf)+len(r.OneOf))
		}
	}
	for m := range byMethod {
		if _, ok := LookupMethod(Method(m)); !ok {
			t.Errorf("upstream method %q (x-method) is not in Methods", m)
		}
	}
}

// TestLookupMethodRefusesOtherNames checks that the slot table answers only
// for exact names: names that share a method's length and last bytes, its
// prefixes and extensions, the empty name, unstable and extension methods.
func TestLookupMethodRefusesOtherNames(t *testing.T) {
	others := []Method{"", "a", "ab", "abc", "_session/update", "session/updatE", "xession/update",
		"session/updat", "session/updatee", "ression/update", "$/cancel_requesT"}
	for name := range UnstableMethods {
		others = append(others, name)
	}
	for _, mi := range Methods {
		n := len(mi.Name)
		others = append(others, mi.Name[:n-1], mi.Name+"x", "X"+mi.Name[1:])
	}
	for _, name := range others {
		if mi, ok := LookupMethod(name); ok || mi != nil {
			t.Errorf("LookupMethod(%q) = %v, %v; want no method", name, mi, ok)
		}
	}
}

// TestMethodSlotsApart checks that each method has a slot of its own, so
// that a lookup reads one slot. A method added later may break this
// without a wrong answer: choose another multiplier in methodSlot.
func TestMethodSlotsApart(t *testing.T) {
	for _, mi := range Methods {
		if i := methodSlot(mi.Name); methodSlots[i] != mi {
			t.Errorf("method %q is not in its first slot %d", mi.Name, i)
		}
	}
}

func BenchmarkLookupMethod(b *testing.B) {
	names := []Method{MethodSessionUpdate, MethodSessionPrompt, MethodFSReadTextFile, "_x/unknown"}
	for b.Loop() {
		for _, name := range names {
			LookupMethod(name)
		}
	}
}
