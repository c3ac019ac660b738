package schemacheck

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// meta reports each "_meta" in v (under shape sh, at loc) whose value the
// schema's own declaration of that "_meta" rejects (ACP-EXTN-004). The
// schemas before SDK 0.7.0 declare "_meta" without a type, so any value
// goes; later ones want an object or null. A "_meta" where the schema
// declares none is not judged: no fact says what it must be. Validation
// leaves "_meta" alone (add), so this is the one place its type is
// judged under --schema.
func (r *report) meta(sh *schemamodel.Shape, v *jsonv.Value, loc []string) {
	if sh != nil && sh.Cycle {
		// A recursive type: its shape is complete now, and the value,
		// not the schema, bounds the depth.
		sh = r.c.model.DefShape(sh.Def)
	}
	if sh == nil || sh.Cycle {
		return
	}
	switch v.Kind {
	case jsonv.Object:
		if sh.Types&schemamodel.TypeObject == 0 {
			return
		}
		d := r.c.declared(sh, v)
		ms := v.Members()
		dd := newDedup(ms)
		for i := range ms {
			if dd.shadowed(i) {
				continue
			}
			k := ms[i].Key
			var p *schemamodel.Prop
			if !d.free {
				p = d.prop(k, v)
			}
			child := append(loc, k) // a stack: judgeMeta keeps only its pointer
			switch {
			case p != nil && k == "_meta":
				r.judgeMeta(p.Shape, d.def, &ms[i].Value, child)
			case p != nil:
				r.meta(p.Shape, &ms[i].Value, child)
			case sh.Values != nil:
				r.meta(sh.Values, &ms[i].Value, child)
			}
		}
	case jsonv.Array:
		es := v.Elems()
		for i := range es {
			r.meta(sh.Items, &es[i], append(loc, index(i)))
		}
	}
}

// judgeMeta reports the "_meta" of an object of def at loc when its
// declared shape sh does not admit its type.
func (r *report) judgeMeta(sh *schemamodel.Shape, def string, v *jsonv.Value, loc []string) {
	if sh == nil {
		return
	}
	val := toAny(v)
	if admitsType(sh.Types, val) {
		return
	}
	r.probs = append(r.probs, codec.Problem{Kind: codec.ProbMeta, Pointer: r.base + pointer(loc), Def: def, Member: "_meta",
		Detail: fmt.Sprintf(`"_meta" is %s; want %s`, article(jsonType(val)), typeNames(sh.Types))})
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
