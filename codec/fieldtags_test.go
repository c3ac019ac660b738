package codec

import (
	"reflect"
	"testing"

	"github.com/acplint/acplint/domain"
)

// fieldTags reads what StructTag.Get reads, for the tags of the domain's
// types and for tags it must leave to StructTag.Get.
func TestFieldTagsMatchesGet(t *testing.T) {
	tags := []reflect.StructTag{
		``, `json:"a"`, `json:"a,omitempty" jsonschema:"required"`, `jsonschema:"notnull" json:"b"`,
		`json:",inline"`, `json:"-"`, `  json:"a"  `, `json:"a" json:"b"`, `xjson:"a" json:"b"`,
		`json:"a\"b"`, `json:"a\\b"`, `json:"é"`, "json:\"a\nb\"", `json:a`, `json:"a`, `json`,
		`json:"a"jsonschema:"b"`, `:"a" json:"b"`, `json:"a" broken jsonschema:"b"`, `jsonschema:"x,y"`,
	}
	n := 0
	var walk func(reflect.Type, map[reflect.Type]bool)
	walk = func(typ reflect.Type, seen map[reflect.Type]bool) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(typ.Elem(), seen)
		case reflect.Interface:
			if u, ok := domain.UnionOf(typ); ok {
				for _, v := range u.Variants {
					walk(v.Type, seen)
				}
			}
		case reflect.Struct:
			for i := range typ.NumField() {
				tags = append(tags, typ.Field(i).Tag)
				n++
				walk(typ.Field(i).Type, seen)
			}
		}
	}
	seen := map[reflect.Type]bool{}
	for _, mi := range domain.Methods {
		for _, newValue := range []func() any{mi.NewParams, mi.NewResult} {
			if newValue != nil {
				walk(reflect.TypeOf(newValue()), seen)
			}
		}
	}
	if n < 200 {
		t.Fatalf("walked %d fields of the domain's types; expected hundreds", n)
	}
	for _, tag := range tags {
		j, s := fieldTags(tag)
		if j != tag.Get("json") || s != tag.Get("jsonschema") {
			t.Errorf("fieldTags(%q) = %q, %q; StructTag.Get says %q, %q", tag, j, s, tag.Get("json"), tag.Get("jsonschema"))
		}
	}
}
