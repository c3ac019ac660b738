package domain

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// infrastructure lists the exported struct types that do not model a JSON
// value of the protocol and so are not in AllTypes.
var infrastructure = map[string]bool{
	"Message":     true,
	"MethodInfo":  true,
	"MethodTable": true,
	"Union":       true,
	"Variant":     true,
	"Member":      true,
	"Problem":     true,
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// TestAllTypesComplete parses the package source and checks that AllTypes
// lists every exported, non-generic struct type, so that a forgotten type
// fails here rather than escaping the convention checks.
func TestAllTypesComplete(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]*ast.TypeSpec{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				specs[ts.Name.Name] = ts
			}
		}
	}
	// isStruct follows "type A B" definitions within the package.
	var isStruct func(ts *ast.TypeSpec, depth int) bool
	isStruct = func(ts *ast.TypeSpec, depth int) bool {
		if ts.Assign.IsValid() || depth > 10 {
			return false // an alias defines no new type
		}
		switch x := ts.Type.(type) {
		case *ast.StructType:
			return true
		case *ast.Ident:
			if next, ok := specs[x.Name]; ok {
				return isStruct(next, depth+1)
			}
		}
		return false
	}
	want := map[string]bool{}
	for name, ts := range specs {
		if ast.IsExported(name) && ts.TypeParams == nil && isStruct(ts, 0) && !infrastructure[name] {
			want[name] = true
		}
	}
	got := map[string]bool{}
	for _, typ := range AllTypes {
		if got[typ.Name()] {
			t.Errorf("AllTypes lists %s twice", typ.Name())
		}
		got[typ.Name()] = true
		if typ.PkgPath() != reflect.TypeFor[Message]().PkgPath() {
			t.Errorf("AllTypes lists %v from another package", typ)
		}
	}
	var missing, extra []string
	for name := range want {
		if !got[name] {
			missing = append(missing, name)
		}
	}
	for name := range got {
		if !want[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, name := range missing {
		t.Errorf("struct type %s is missing from AllTypes (types.go)", name)
	}
	for _, name := range extra {
		t.Errorf("AllTypes lists %s, which is not an exported struct type of the package", name)
	}
}

// TestObjectConventions checks the field conventions of every object type:
// Meta and Unknown, json tags, Opt for optional members, no pointers.
func TestObjectConventions(t *testing.T) {
	var (
		rawType     = reflect.TypeFor[json.RawMessage]()
		membersType = reflect.TypeFor[Members]()
		optType     = reflect.TypeFor[Optional]()
	)
	for _, typ := range AllTypes {
		if IsVerbatim(typ) {
			continue
		}
		n := typ.NumField()
		last := typ.Field(n - 1)
		if last.Name != "Unknown" || last.Type != membersType || last.Tag.Get("json") != "-" {
			t.Errorf("%v: the last field must be Unknown Members `json:\"-\"`", typ)
		}
		if meta, ok := typ.FieldByName("Meta"); ok {
			if meta.Type != rawType || meta.Tag.Get("json") != "_meta" {
				t.Errorf("%v: Meta must be json.RawMessage `json:\"_meta\"`", typ)
			}
			if meta.Index[0] != n-2 {
				t.Errorf("%v: Meta must come just before Unknown", typ)
			}
		}
		names := map[string]bool{}
		for i := 0; i < n-1; i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				t.Errorf("%v.%s: unexported field", typ, f.Name)
				continue
			}
			if f.Type.Kind() == reflect.Pointer {
				t.Errorf("%v.%s: pointer field; use Opt for optional members", typ, f.Name)
			}
			if f.Type == membersType {
				t.Errorf("%v.%s: only the last field may be Members", typ, f.Name)
			}
			if IsInline(f) {
				if _, ok := UnionOf(f.Type); !ok {
					t.Errorf("%v.%s: inline field is not a union", typ, f.Name)
				}
				continue
			}
			name := jsonName(f)
			if name == "" || name == "-" {
				t.Errorf("%v.%s: no json member name", typ, f.Name)
				continue
			}
			if names[name] {
				t.Errorf("%v: member %q is declared twice", typ, name)
			}
			names[name] = true
			required := strings.Contains(f.Tag.Get("jsonschema"), "required")
			isOpt := f.Type.Kind() == reflect.Struct && f.Type.Implements(optType)
			switch {
			case isOpt && required:
				t.Errorf("%v.%s: an Opt member cannot be required", typ, f.Name)
			case IsNotNull(f) && !isOpt:
				t.Errorf("%v.%s: notnull applies to Opt members only", typ, f.Name)
			case !isOpt && !required && f.Type != rawType && f.Type.Kind() != reflect.Interface:
				t.Errorf("%v.%s: an optional member must be an Opt (or json.RawMessage for any JSON)", typ, f.Name)
			}
		}
		// The members of inline arms must not collide with the
		// enclosing object's own members.
		for i := 0; i < n-1; i++ {
			f := typ.Field(i)
			if !IsInline(f) {
				continue
			}
			u, _ := UnionOf(f.Type)
			arms := []reflect.Type{u.Default}
			for _, v := range u.Variants {
				arms = append(arms, v.Type)
			}
			for _, arm := range arms {
				if arm == nil || arm.Kind() != reflect.Struct {
					continue
				}
				for af := range arm.Fields() {
					if names[jsonName(af)] {
						t.Errorf("%v.%s: arm %v declares %q, which %v also declares", typ, f.Name, arm, jsonName(af), typ)
					}
				}
			}
		}
	}
}

// TestSharedShapes checks that each type in SharedShapes has exactly the
// fields of the $def type it stands for.
func TestSharedShapes(t *testing.T) {
	for typ, shape := range SharedShapes {
		if typ.NumField() != shape.NumField() {
			t.Errorf("%v has %d fields; %v has %d", typ, typ.NumField(), shape, shape.NumField())
			continue
		}
		for i := 0; i < typ.NumField(); i++ {
			a, b := typ.Field(i), shape.Field(i)
			if a.Name != b.Name || a.Type != b.Type || a.Tag != b.Tag {
				t.Errorf("%v.%s differs from %v.%s", typ, a.Name, shape, b.Name)
			}
		}
	}
}
