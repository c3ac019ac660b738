package domain

import (
	"reflect"
	"testing"
)

// TestUnions checks every entry of Unions against the conventions in
// union.go and types.go.
func TestUnions(t *testing.T) {
	names := map[string]bool{}
	ifaces := map[reflect.Type]bool{}
	for _, u := range Unions {
		if u.Name == "" {
			t.Errorf("a union has no Name (interface %v)", u.Interface)
			continue
		}
		if names[u.Name] {
			t.Errorf("%s: listed twice in Unions", u.Name)
		}
		names[u.Name] = true
		if u.Interface == nil || u.Interface.Kind() != reflect.Interface {
			t.Errorf("%s: Interface %v is not an interface type", u.Name, u.Interface)
			continue
		}
		if ifaces[u.Interface] {
			t.Errorf("%s: interface %v has two Union entries", u.Name, u.Interface)
		}
		ifaces[u.Interface] = true
		if got, ok := UnionOf(u.Interface); !ok || got != u {
			t.Errorf("%s: UnionOf(%v) does not return this entry", u.Name, u.Interface)
		}
		if u.Interface.NumMethod() != 1 || u.Interface.Method(0).IsExported() {
			t.Errorf("%s: %v is not sealed by a single unexported method", u.Name, u.Interface)
		}

		switch {
		case u.Unknown == nil:
			t.Errorf("%s: no Unknown variant", u.Name)
		case !u.Unknown.Implements(u.Interface):
			t.Errorf("%s: Unknown %v does not implement %v", u.Name, u.Unknown, u.Interface)
		case !IsVerbatim(u.Unknown):
			t.Errorf("%s: Unknown %v must be a struct with exactly one field Raw json.RawMessage", u.Name, u.Unknown)
		}

		if len(u.Variants) == 0 {
			t.Errorf("%s: no variants", u.Name)
		}
		tags := map[string]bool{}
		types := map[reflect.Type]bool{}
		for _, v := range u.Variants {
			switch {
			case v.Type == nil:
				t.Errorf("%s: variant %q has no type", u.Name, v.Tag)
				continue
			case v.Type.Kind() == reflect.Interface || v.Type.Kind() == reflect.Pointer:
				t.Errorf("%s: variant %v must be a struct or slice type, not %v", u.Name, v.Type, v.Type.Kind())
			case !v.Type.Implements(u.Interface):
				t.Errorf("%s: variant %v does not implement %v", u.Name, v.Type, u.Interface)
			case v.Type == u.Unknown:
				t.Errorf("%s: the Unknown type %v is also listed as a variant", u.Name, v.Type)
			}
			if types[v.Type] {
				t.Errorf("%s: variant type %v is listed twice; each Go type maps to one tag", u.Name, v.Type)
			}
			types[v.Type] = true
			if u.Tag != "" {
				if v.Tag == "" {
					t.Errorf("%s: variant %v of a tagged union has an empty tag; an untagged arm is the Default", u.Name, v.Type)
				} else if tags[v.Tag] {
					t.Errorf("%s: tag %q is listed twice", u.Name, v.Tag)
				}
				tags[v.Tag] = true
			} else if v.Tag != "" {
				t.Errorf("%s: variant %v has tag %q but the union has no Tag", u.Name, v.Type, v.Tag)
			}
			// The discriminator belongs to the union; no arm declares it.
			if u.Tag != "" && v.Type.Kind() == reflect.Struct {
				for f := range v.Type.Fields() {
					if jsonName(f) == u.Tag {
						t.Errorf("%s: variant %v declares the discriminator %q as field %s", u.Name, v.Type, u.Tag, f.Name)
					}
				}
			}
		}

		if u.Tag == "" {
			if u.Guess == nil {
				t.Errorf("%s: untagged union has no Guess", u.Name)
			}
			if u.Default != nil {
				t.Errorf("%s: untagged union has a Default; Guess picks the arm", u.Name)
			}
			if u.Open {
				t.Errorf("%s: only a discriminator can be open", u.Name)
			}
		} else if u.Guess != nil {
			t.Errorf("%s: tagged union has a Guess", u.Name)
		}
		if d := u.Default; d != nil {
			if !d.Implements(u.Interface) {
				t.Errorf("%s: Default %v does not implement %v", u.Name, d, u.Interface)
			}
			if d == u.Unknown {
				t.Errorf("%s: Default is the Unknown type", u.Name)
			}
		}
	}
}

// TestUnionArmsRegistered checks that every type implementing a union
// interface is one of its arms, so that no arm is forgotten in the table.
func TestUnionArmsRegistered(t *testing.T) {
	for _, typ := range AllTypes {
		for _, u := range Unions {
			if !typ.Implements(u.Interface) {
				continue
			}
			found := typ == u.Unknown || typ == u.Default
			for _, v := range u.Variants {
				found = found || v.Type == typ
			}
			if !found {
				t.Errorf("%v implements %s but is not one of its arms", typ, u.Name)
			}
		}
	}
}

// TestUnionsReachable checks that every interface-typed field holds a
// registered union, that every union is used by some field, and that inline
// fields hold unions of object arms.
func TestUnionsReachable(t *testing.T) {
	used := map[reflect.Type]bool{}
	var walk func(owner reflect.Type, f reflect.StructField, typ reflect.Type)
	walk = func(owner reflect.Type, f reflect.StructField, typ reflect.Type) {
		switch {
		case typ.Kind() == reflect.Struct && typ.Implements(reflect.TypeFor[Optional]()):
			walk(owner, f, typ.Field(0).Type)
		case typ.Kind() == reflect.Slice && typ != reflect.TypeFor[rawOf]() || typ.Kind() == reflect.Map:
			walk(owner, f, typ.Elem())
		case typ.Kind() == reflect.Interface:
			u, ok := UnionOf(typ)
			if !ok {
				t.Errorf("%v.%s: %v is an interface but not a registered union", owner, f.Name, typ)
				return
			}
			used[typ] = true
			for _, v := range u.Variants {
				if v.Type.Kind() == reflect.Slice {
					used[typ] = true
					walk(v.Type, f, v.Type)
				}
			}
		}
	}
	for _, typ := range AllTypes {
		for f := range typ.Fields() {
			walk(typ, f, f.Type)
			if IsInline(f) {
				u, ok := UnionOf(f.Type)
				if !ok {
					t.Errorf("%v.%s: inline field of type %v is not a union", typ, f.Name, f.Type)
					continue
				}
				for _, v := range append([]Variant{{Type: u.Default}}, u.Variants...) {
					if v.Type != nil && v.Type.Kind() != reflect.Struct {
						t.Errorf("%v.%s: inline union %s has non-object arm %v", typ, f.Name, u.Name, v.Type)
					}
				}
			}
		}
	}
	for _, u := range Unions {
		if !used[u.Interface] {
			t.Errorf("%s: no field of any type in AllTypes holds this union", u.Name)
		}
	}
}

// TestUnionAssign stores a value of every arm through Assign and reads it
// back: a union whose Assign names another interface panics here, and
// one without Assign would make the codec panic on its first value.
func TestUnionAssign(t *testing.T) {
	for _, u := range Unions {
		if u.Assign == nil {
			t.Errorf("%s: no Assign", u.Name)
			continue
		}
		arms := []reflect.Type{u.Unknown}
		for _, v := range u.Variants {
			arms = append(arms, v.Type)
		}
		for _, at := range arms {
			arm := reflect.New(at).Elem()
			if at.Kind() == reflect.Struct && at.NumField() > 0 && at.Field(0).Type.Kind() == reflect.Slice {
				// Something to tell the stored copy from a zero value.
				arm.Field(0).Set(reflect.MakeSlice(at.Field(0).Type, 1, 1))
			}
			dst := reflect.New(u.Interface).Elem()
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: Assign(%v) panics: %v", u.Name, at, r)
					}
				}()
				u.Assign(dst, arm)
			}()
			if dst.IsNil() || dst.Elem().Type() != at || !reflect.DeepEqual(dst.Elem().Interface(), arm.Interface()) {
				t.Errorf("%s: Assign(%v) stored %v", u.Name, at, dst)
			}
		}
	}
}
