package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// typeClass says how the codec handles a Go type; it is computed once per type.
type typeClass uint8

const (
	classRaw      typeClass = iota + 1 // json.RawMessage: kept verbatim
	classVerbatim                      // a struct{ Raw json.RawMessage }: any JSON, kept as written
	classOpt                           // domain.Opt[T]
	classUnion                         // a union interface
	classStruct                        // an object type
	classSlice                         // an array
	classMap                           // an object with arbitrary keys
	classString                        // a string or string enum
	classBool                          // a boolean
	classInt                           // a signed integer
	classUint                          // an unsigned integer
	classFloat                         // a number
	classAny                           // an unrecognised interface: kept raw
)

type field struct {
	name     string // the member name; "" for an inline union
	index    int    // the Go field index
	required bool
	notNull  bool          // an Opt member that must not be null on the wire
	inline   *domain.Union // set when the field holds an inline union
	typ      reflect.Type
	named    bool     // byName maps name to this field
	plan     lazyPlan // of typ
}

// typePlan returns the plan of the field's type.
func (f *field) typePlan() *typePlan { return f.plan.of(f.typ) }

// lazyPlan caches planFor of one type once it is first needed: plans of
// recursive types cannot be built eagerly.
type lazyPlan struct{ p atomic.Pointer[typePlan] }

func (l *lazyPlan) of(t reflect.Type) *typePlan {
	if p := l.p.Load(); p != nil {
		return p
	}
	p := planFor(t)
	l.p.Store(p)
	return p
}

type structPlan struct {
	name    string // the schema definition name: the Go type name
	fields  []field
	byName  map[string]int // member name -> index into fields (inline unions excluded)
	inlines []int          // indexes into fields of the inline unions, in declaration order
	unknown int            // index of the Unknown domain.Members field, or -1
	// required has bit i set when fields[i] is required, so that an
	// object with every required member is judged in one comparison.
	required uint64
}

// field finds the declared member called name. Senders mostly write members
// in declaration order, so the field after the previous match (next) is
// tried before the map.
func (sp *structPlan) field(name string, next int) (int, bool) {
	if next < len(sp.fields) && sp.fields[next].named && sp.fields[next].name == name {
		return next, true
	}
	fi, ok := sp.byName[name]
	return fi, ok
}

type typePlan struct {
	class    typeClass
	st       *structPlan
	union    *domain.Union
	arrayArm bool     // the union's arms are arrays (SessionConfigSelectOptions)
	enum     []string // for string enums
	open     bool     // the enum is open
	bits     int      // integer width
	elem     reflect.Type
	tagged   map[reflect.Type]string // union variant type -> discriminator value (Default excluded)
	verbatim verbatimCheck           // for classVerbatim: what JSON the type admits
	want     string                  // the JSON type the Go type stands for, for messages
	// scratch keeps zeroed values of the type (as pointers) to decode a
	// union arm into (see scratchValue).
	scratch  sync.Pool
	elemPlan lazyPlan // of elem
}

// elemTypePlan returns the plan of the element type of a slice or map, or
// of the value type of an Opt.
func (p *typePlan) elemTypePlan() *typePlan { return p.elemPlan.of(p.elem) }

// verbatimCheck validates a value kept verbatim, reporting what the schema
// does not admit; nil admits any JSON value.
type verbatimCheck func(d *decoder, v *jsonv.Value, def string)

var (
	rawType      = reflect.TypeFor[json.RawMessage]()
	membersType  = reflect.TypeFor[domain.Members]()
	optionalType = reflect.TypeFor[domain.Optional]()
	enumType     = reflect.TypeFor[domain.Enum]()
	plans        sync.Map // reflect.Type -> *typePlan
)

func planFor(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	p := buildPlan(t)
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*typePlan)
}

func buildPlan(t reflect.Type) *typePlan {
	switch {
	case t == rawType:
		return &typePlan{class: classRaw, want: "any JSON value"}
	case domain.IsVerbatim(t):
		return &typePlan{class: classVerbatim, verbatim: verbatimCheckFor(t), want: "any JSON value"}
	case t.Kind() == reflect.Struct && t.Implements(optionalType):
		return &typePlan{class: classOpt, elem: t.Field(0).Type}
	case t.Kind() == reflect.Interface:
		if u, ok := domain.UnionOf(t); ok {
			p := &typePlan{class: classUnion, union: u, tagged: map[reflect.Type]string{}, want: "object"}
			p.arrayArm = len(u.Variants) > 0
			for _, v := range u.Variants {
				if v.Tag != "" && v.Type != u.Default {
					p.tagged[v.Type] = v.Tag
				}
				if v.Type.Kind() != reflect.Slice {
					p.arrayArm = false
				}
			}
			if p.arrayArm {
				p.want = "array"
			}
			return p
		}
		return &typePlan{class: classAny, want: "any JSON value"}
	case t.Kind() == reflect.Struct:
		return &typePlan{class: classStruct, st: buildStructPlan(t), want: "object"}
	case t.Kind() == reflect.Slice:
		return &typePlan{class: classSlice, elem: t.Elem(), want: "array"}
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		return &typePlan{class: classMap, elem: t.Elem(), want: "object"}
	case t.Kind() == reflect.String:
		p := &typePlan{class: classString, want: "string"}
		if t.Implements(enumType) {
			p.enum, p.open = reflect.Zero(t).Interface().(domain.Enum).EnumValues()
		}
		return p
	case t.Kind() == reflect.Bool:
		return &typePlan{class: classBool, want: "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return &typePlan{class: classInt, bits: t.Bits(), want: "integer"}
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return &typePlan{class: classUint, bits: t.Bits(), want: "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return &typePlan{class: classFloat, bits: t.Bits(), want: "number"}
	}
	panic("codec: unsupported domain type " + t.String())
}

func buildStructPlan(t reflect.Type) *structPlan {
	sp := &structPlan{name: t.Name(), byName: map[string]int{}, unknown: -1}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type == membersType {
			sp.unknown = i
			continue
		}
		jsonTag, schemaTag := fieldTags(f.Tag)
		if domain.InlineTag(jsonTag) {
			u, ok := domain.UnionOf(f.Type)
			if !ok {
				panic("codec: inline field " + t.Name() + "." + f.Name + " is not a union")
			}
			sp.inlines = append(sp.inlines, len(sp.fields))
			sp.fields = append(sp.fields, field{index: i, inline: u, typ: f.Type})
			continue
		}
		name, _, _ := strings.Cut(jsonTag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		sp.byName[name] = len(sp.fields)
		sp.fields = append(sp.fields, field{
			name:     name,
			index:    i,
			required: strings.Contains(schemaTag, "required"),
			notNull:  domain.NotNullTag(schemaTag),
			typ:      f.Type,
		})
	}
	for i := range sp.fields {
		f := &sp.fields[i]
		if fi, ok := sp.byName[f.name]; ok && fi == i && f.inline == nil {
			f.named = true
		}
		if f.required {
			sp.required |= 1 << i
		}
	}
	if len(sp.fields) > 64 {
		// decodeStruct tracks seen members in a uint64.
		panic("codec: " + t.Name() + " has more than 64 members")
	}
	return sp
}

// fieldTags returns tag.Get("json") and tag.Get("jsonschema") in one
// reading. A value with no escape in it is its quoted text as written, so
// it is not unquoted: StructTag.Get's strconv.Unquote was most of planning
// a type on a first lint (~0.2M instructions). A tag with a backslash, a
// byte outside ASCII or a malformed part is left to StructTag.Get.
func fieldTags(tag reflect.StructTag) (jsonTag, schemaTag string) {
	var haveJSON, haveSchema bool
	for s := string(tag); s != ""; {
		i := 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if s = s[i:]; s == "" {
			break
		}
		i = 0
		for i < len(s) && s[i] > ' ' && s[i] != ':' && s[i] != '"' && s[i] < 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(s) || s[i] != ':' || s[i+1] != '"' {
			return tag.Get("json"), tag.Get("jsonschema")
		}
		name := s[:i]
		s = s[i+2:]
		end := strings.IndexByte(s, '"')
		if end < 0 {
			return tag.Get("json"), tag.Get("jsonschema")
		}
		value := s[:end]
		for j := 0; j < len(value); j++ {
			if c := value[j]; c == '\\' || c == '\n' || c >= 0x80 {
				return tag.Get("json"), tag.Get("jsonschema")
			}
		}
		s = s[end+1:]
		switch {
		case name == "json" && !haveJSON:
			jsonTag, haveJSON = value, true
		case name == "jsonschema" && !haveSchema:
			schemaTag, haveSchema = value, true
		}
	}
	return jsonTag, schemaTag
}
