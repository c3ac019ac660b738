package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/schemamodel"
)

// The facts of a schema version beyond the shapes that JSON Schema
// validation checks (schema.go): which methods exist and who sends them,
// and where "_meta" must be an object. Under --schema they come from the
// given file, so that lint and corpus judge traffic by that version
// rather than by the tables compiled into acplint.

// methodTable returns the method table of s for the protocol machine: the
// methods s defines (x-method), stable or not (schemamodel's reading of
// the **UNSTABLE** markers), with the side that implements each (x-side).
//
// A stable file (no unstable marker) describes the stable surface only
// and says nothing about the unstable one: the methods acplint knows as
// unstable stay unstable (ACP-CAP-020, as without --schema) unless the
// file defines them. An unstable superset describes both, so a method it
// does not define is undefined (ACP-EXTN-001), whatever acplint knows of
// it from another version.
func methodTable(s *schemamodel.Schema) *domain.MethodTable {
	var stable []*domain.MethodInfo
	unstable := map[domain.Method]domain.Side{}
	if !s.Superset {
		for name, side := range domain.UnstableMethods {
			unstable[name] = side
		}
	}
	for _, name := range s.Methods() {
		req := s.Message(name, schemamodel.KindRequest)
		note := s.Message(name, schemamodel.KindNotification)
		resp := s.Message(name, schemamodel.KindResponse)
		params := req
		if params == nil {
			params = note
		}
		if params == nil {
			params = resp // a result without params: the method exists all the same
		}
		method := domain.Method(name)
		receiver := receiverOf(params.Handler)
		if req != nil && note != nil && req.Handler != note.Handler {
			receiver = domain.SideEither // mcp/message: each side sends one of the two forms
		}
		if params.Unstable {
			unstable[method] = receiver
			continue
		}
		delete(unstable, method)
		mi := &domain.MethodInfo{Name: method, Receiver: receiver, Notification: req == nil && note != nil}
		if req != nil {
			mi.ParamsDef = req.Def
		} else if note != nil {
			mi.ParamsDef = note.Def
		}
		if resp != nil {
			mi.ResultDef = resp.Def
		}
		stable = append(stable, mi)
	}
	return domain.NewMethodTable(s.File, stable, unstable)
}

// receiverOf maps an x-side (the side that implements a method) onto
// domain's sides; "protocol", "both" and "proxy" methods may be sent by
// either side.
func receiverOf(side schemamodel.Side) domain.Side {
	switch side {
	case schemamodel.SideAgent:
		return domain.SideAgent
	case schemamodel.SideClient:
		return domain.SideClient
	}
	return domain.SideEither
}

// metaProblems reports each "_meta" of the params or result raw (at base)
// whose value the schema's own declaration of that "_meta" rejects
// (ACP-EXTN-004). The schemas before SDK 0.7.0 declare "_meta" without a
// type, so any value goes; later ones want an object or null. A "_meta"
// where the schema declares none is not judged: no fact says what it must
// be.
func (s *Schema) metaProblems(msg *schemamodel.Message, raw json.RawMessage, base string) []codec.Problem {
	if !bytes.Contains(raw, []byte(`"_meta"`)) {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil // the codec reports lines that are not JSON
	}
	w := metaWalk{model: s.model, base: base}
	w.walk(msg.Shape, v, nil)
	return w.probs
}

type metaWalk struct {
	model *schemamodel.Schema
	base  string
	probs []codec.Problem
}

// walk follows value v down shape sh, choosing the variant each object's
// tag selects as validation does (declared), to every "_meta" the schema
// declares.
func (w *metaWalk) walk(sh *schemamodel.Shape, v any, loc []string) {
	if sh != nil && sh.Cycle {
		// A recursive type: its shape is complete now, and the value,
		// not the schema, bounds the depth.
		sh = w.model.DefShape(sh.Def)
	}
	if sh == nil || sh.Cycle {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		props, def, _ := declared(sh, x)
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
				w.judge(p.Shape, def, x[k], child)
			case p != nil:
				w.walk(p.Shape, x[k], child)
			case sh.Values != nil:
				w.walk(sh.Values, x[k], child)
			}
		}
	case []any:
		for i, e := range x {
			w.walk(sh.Items, e, append(loc[:len(loc):len(loc)], fmt.Sprint(i)))
		}
	}
}

// judge reports meta, the "_meta" of an object of def at loc, when its
// declared shape sh does not admit its type.
func (w *metaWalk) judge(sh *schemamodel.Shape, def string, meta any, loc []string) {
	if sh == nil || admitsType(sh.Types, meta) {
		return
	}
	w.probs = append(w.probs, codec.Problem{Kind: codec.ProbMeta, Pointer: w.base + pointer(loc), Def: def, Member: "_meta",
		Detail: fmt.Sprintf(`"_meta" is %s; want %s`, article(jsonType(meta)), typeNames(sh.Types))})
}

// admitsType reports whether a value of v's JSON type is in t.
func admitsType(t schemamodel.Types, v any) bool {
	switch x := v.(type) {
	case nil:
		return t&schemamodel.TypeNull != 0
	case bool:
		return t&schemamodel.TypeBoolean != 0
	case string:
		return t&schemamodel.TypeString != 0
	case []any:
		return t&schemamodel.TypeArray != 0
	case map[string]any:
		return t&schemamodel.TypeObject != 0
	case json.Number:
		if t&schemamodel.TypeNumber != 0 {
			return true
		}
		_, err := x.Int64()
		return t&schemamodel.TypeInteger != 0 && err == nil
	}
	return t&schemamodel.TypeNumber != 0 // other number representations
}

// typeNames renders t for a message: "an object or null".
func typeNames(t schemamodel.Types) string {
	names := strings.Split(t.String(), " or ")
	for i, n := range names {
		names[i] = article(n)
	}
	return strings.Join(names, " or ")
}

// receiverIn returns the side that implements method in table t (nil: the
// compiled tables), stable or unstable, and whether t defines it.
func receiverIn(t *domain.MethodTable, method domain.Method) (domain.Side, bool) {
	if mi, ok := t.Lookup(method); ok {
		return mi.Receiver, true
	}
	return t.Unstable(method)
}
