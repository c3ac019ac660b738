package domain

import (
	"encoding/json"
	"reflect"
)

// A Union describes how one sealed interface is told apart on the wire.
type Union struct {
	// Name is the upstream $defs name, e.g. "ContentBlock".
	Name string
	// Interface is the Go interface type of the union.
	Interface reflect.Type
	// Assign stores arm, a value of one of the variant types, in dst, a
	// settable value of type Interface (see assignArm).
	Assign func(dst, arm reflect.Value)
	// Tag is the discriminator member ("type", "sessionUpdate", "outcome",
	// "mode", "action"); empty for unions told apart by shape alone.
	Tag string
	// Variants maps each discriminator value to its Go type (a struct type
	// whose pointer does not implement the interface; the value does).
	Variants []Variant
	// Default is the variant taken when the tag member is absent (the stdio
	// McpServer, the agent AuthMethod, the select config value); empty when
	// an absent tag makes the value unknown.
	Default reflect.Type
	// Guess picks the variant of an untagged union from the member names the
	// object carries; nil for tagged unions.
	Guess func(has func(name string) bool) reflect.Type
	// Unknown is the variant that keeps an unrecognised value. Its type must
	// be a struct with a single field Raw json.RawMessage.
	Unknown reflect.Type
	// Open is true when the spec allows discriminator values beyond those
	// listed (an unrecognised one is then not a schema violation).
	Open bool
}

// Variant is one arm of a Union.
type Variant struct {
	Tag  string
	Type reflect.Type
}

// VariantFor returns the arm with discriminator tag.
func (u *Union) VariantFor(tag string) (reflect.Type, bool) {
	for _, v := range u.Variants {
		if v.Tag == tag {
			return v.Type, true
		}
	}
	return nil, false
}

// TagOf returns the discriminator value of Go type t, and false for the
// Default and Unknown arms of a union that writes no tag for them.
func (u *Union) TagOf(t reflect.Type) (string, bool) {
	for _, v := range u.Variants {
		if v.Type == t {
			return v.Tag, true
		}
	}
	return "", false
}

// assignArm is Union.Assign for interface I. reflect.Value.Set would
// first prove that the arm's type implements I by walking both method
// sets, which costs about as much as decoding a small arm; the type
// assertion below finds the method table in the runtime's cache instead.
func assignArm[I any](dst, arm reflect.Value) {
	*dst.Addr().Interface().(*I) = arm.Interface().(I)
}

// UnionOf returns the Union for interface type t.
func UnionOf(t reflect.Type) (*Union, bool) {
	u, ok := unionByType[t]
	return u, ok
}

var unionByType = func() map[reflect.Type]*Union {
	m := make(map[reflect.Type]*Union, len(Unions))
	for _, u := range Unions {
		m[u.Interface] = u
	}
	return m
}()

// rawOf is the shape every Unknown… variant has.
type rawOf = json.RawMessage
