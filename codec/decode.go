package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
)

// decoder fills domain values from a parsed tree and collects problems.
type decoder struct {
	src      []byte
	problems []Problem
}

func (d *decoder) report(p Problem) { d.problems = append(d.problems, p) }

func (d *decoder) raw(v *jsonv.Value) json.RawMessage {
	return json.RawMessage(v.Raw(d.src))
}

// short renders a value for a message, cut to a readable length.
func (d *decoder) short(v *jsonv.Value) string {
	s := string(v.Raw(d.src))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// decode fills rv (settable) from v. ptr locates v within the message and
// def names the enclosing schema definition, for problem reports.
func (d *decoder) decode(v *jsonv.Value, rv reflect.Value, ptr jsonv.Pointer, def string) {
	p := planFor(rv.Type())
	switch p.class {
	case classRaw, classAny:
		raw := d.raw(v)
		if p.class == classAny {
			return // nothing but raw can be kept in an unknown interface
		}
		rv.SetBytes(raw)
	case classOpt:
		if v.Kind == jsonv.Null {
			rv.Field(1).SetUint(uint64(domain.Null))
			return
		}
		rv.Field(1).SetUint(uint64(domain.Present))
		d.decode(v, rv.Field(0), ptr, def)
	case classUnion:
		d.decodeUnion(v, rv, p.union, ptr, def)
	case classStruct:
		if v.Kind != jsonv.Object {
			d.typeProblem(v, ptr, def, "object")
			return
		}
		d.decodeStruct(v, rv, p.st, ptr, "")
	case classSlice:
		if v.Kind != jsonv.Array {
			d.typeProblem(v, ptr, def, "array")
			return
		}
		s := reflect.MakeSlice(rv.Type(), len(v.Elems), len(v.Elems))
		for i := range v.Elems {
			d.decode(&v.Elems[i], s.Index(i), ptr.Index(i), def)
		}
		rv.Set(s)
	case classMap:
		if v.Kind != jsonv.Object {
			d.typeProblem(v, ptr, def, "object")
			return
		}
		m := reflect.MakeMapWithSize(rv.Type(), len(v.Members))
		for i := range v.Members {
			mem := &v.Members[i]
			ev := reflect.New(p.elem).Elem()
			d.decode(&mem.Value, ev, ptr.Key(mem.Key), def)
			m.SetMapIndex(reflect.ValueOf(mem.Key).Convert(rv.Type().Key()), ev)
		}
		rv.Set(m)
	case classString:
		if v.Kind != jsonv.String {
			d.typeProblem(v, ptr, def, "string")
			return
		}
		rv.SetString(v.Str)
		if p.enum != nil && !contains(p.enum, v.Str) {
			kind := ProbEnum
			if p.open {
				kind = ProbOpenEnum
			}
			d.report(Problem{Kind: kind, Pointer: string(ptr), Def: rv.Type().Name(), Value: v.Str,
				Detail: fmt.Sprintf("%q is not one of %s", v.Str, quoteList(p.enum))})
		}
	case classBool:
		if v.Kind != jsonv.Bool {
			d.typeProblem(v, ptr, def, "boolean")
			return
		}
		rv.SetBool(v.Bool)
	case classInt, classUint:
		if v.Kind != jsonv.Number {
			d.typeProblem(v, ptr, def, "integer")
			return
		}
		d.decodeInteger(v, rv, p, ptr, def)
	case classFloat:
		if v.Kind != jsonv.Number {
			d.typeProblem(v, ptr, def, "number")
			return
		}
		f, err := strconv.ParseFloat(v.Str, 64)
		if err != nil {
			d.report(Problem{Kind: ProbRange, Pointer: string(ptr), Def: def, Value: v.Str,
				Detail: fmt.Sprintf("number %s is out of range", v.Str)})
			return
		}
		rv.SetFloat(f)
	}
}

func (d *decoder) decodeInteger(v *jsonv.Value, rv reflect.Value, p *typePlan, ptr jsonv.Pointer, def string) {
	lit := v.Str
	// 1.0 and 1e2 are integers in JSON Schema's sense; accept them when
	// they denote a whole number, as the reference validators do.
	if strings.ContainsAny(lit, ".eE") {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || f != float64(int64(f)) {
			d.report(Problem{Kind: ProbRange, Pointer: string(ptr), Def: def, Value: lit,
				Detail: fmt.Sprintf("%s is not an integer", lit)})
			return
		}
		lit = strconv.FormatInt(int64(f), 10)
	}
	if p.class == classInt {
		n, err := strconv.ParseInt(lit, 10, p.bits)
		if err != nil {
			d.report(Problem{Kind: ProbRange, Pointer: string(ptr), Def: def, Value: v.Str,
				Detail: fmt.Sprintf("%s is out of range for a %d-bit integer", v.Str, p.bits)})
			return
		}
		rv.SetInt(n)
		return
	}
	n, err := strconv.ParseUint(lit, 10, p.bits)
	if err != nil {
		what := fmt.Sprintf("%s is out of range for an unsigned %d-bit integer", v.Str, p.bits)
		if strings.HasPrefix(lit, "-") {
			what = fmt.Sprintf("%s is negative; want an integer from 0", v.Str)
		}
		d.report(Problem{Kind: ProbRange, Pointer: string(ptr), Def: def, Value: v.Str, Detail: what})
		return
	}
	rv.SetUint(n)
}

func (d *decoder) typeProblem(v *jsonv.Value, ptr jsonv.Pointer, def, want string) {
	d.report(Problem{Kind: ProbType, Pointer: string(ptr), Def: def, Value: d.short(v),
		Detail: fmt.Sprintf("%s is %s; want %s", d.short(v), article(v.Kind.String()), article(want))})
}

// decodeStruct fills the object type described by sp. skip names a member
// that belongs to the enclosing union (its discriminator) and is not a
// member of the struct itself.
func (d *decoder) decodeStruct(v *jsonv.Value, rv reflect.Value, sp *structPlan, ptr jsonv.Pointer, skip string) {
	seen := make([]bool, len(sp.fields))
	var unknown domain.Members
	for i := range v.Members {
		m := &v.Members[i]
		fi, ok := sp.byName[m.Key]
		if !ok {
			if m.Key == skip {
				continue
			}
			unknown = append(unknown, domain.Member{Name: m.Key, Value: d.raw(&m.Value)})
			d.report(Problem{Kind: ProbUnknownMember, Pointer: string(ptr.Key(m.Key)), Def: sp.name, Member: m.Key,
				Detail: fmt.Sprintf("%q is not a member of %s", m.Key, sp.name)})
			continue
		}
		if seen[fi] {
			d.report(Problem{Kind: ProbDuplicate, Pointer: string(ptr.Key(m.Key)), Def: sp.name, Member: m.Key,
				Detail: fmt.Sprintf("member %q appears more than once; receivers disagree on which copy wins", m.Key)})
			// The first copy is the typed value; the repeat is carried in
			// Unknown so that re-encoding loses nothing.
			unknown = append(unknown, domain.Member{Name: m.Key, Value: d.raw(&m.Value)})
			continue
		}
		seen[fi] = true
		f := &sp.fields[fi]
		if m.Key == "_meta" && m.Value.Kind != jsonv.Object && m.Value.Kind != jsonv.Null {
			d.report(Problem{Kind: ProbMeta, Pointer: string(ptr.Key(m.Key)), Def: sp.name, Member: m.Key,
				Detail: fmt.Sprintf(`"_meta" is %s; want an object or null`, article(m.Value.Kind.String()))})
		}
		d.decode(&m.Value, rv.Field(f.index), ptr.Key(m.Key), sp.name)
	}
	for i, f := range sp.fields {
		if f.required && !seen[i] {
			d.report(Problem{Kind: ProbMissing, Pointer: string(ptr.Key(f.name)), Def: sp.name, Member: f.name,
				Detail: fmt.Sprintf("%s lacks required %q", sp.name, f.name)})
		}
	}
	if sp.unknown >= 0 && unknown != nil {
		rv.Field(sp.unknown).Set(reflect.ValueOf(unknown))
	}
}

func (d *decoder) decodeUnion(v *jsonv.Value, rv reflect.Value, u *domain.Union, ptr jsonv.Pointer, def string) {
	var vt reflect.Type
	skip := ""
	if v.Kind != jsonv.Object && u.Guess == nil {
		d.typeProblem(v, ptr, def, "object")
		d.setUnknown(v, rv, u)
		return
	}
	switch {
	case u.Tag != "":
		tv, ok := v.Get(u.Tag)
		switch {
		case !ok && u.Default != nil:
			vt = u.Default
		case !ok:
			d.report(Problem{Kind: ProbMissing, Pointer: string(ptr.Key(u.Tag)), Def: u.Name, Member: u.Tag,
				Detail: fmt.Sprintf("%s lacks its discriminator %q", u.Name, u.Tag)})
		case tv.Kind != jsonv.String:
			d.typeProblem(tv, ptr.Key(u.Tag), u.Name, "string")
		default:
			t, known := u.VariantFor(tv.Str)
			if !known {
				kind := ProbUnknownVariant
				if u.Open {
					kind = ProbOpenEnum
				}
				d.report(Problem{Kind: kind, Pointer: string(ptr.Key(u.Tag)), Def: u.Name, Member: u.Tag, Value: tv.Str,
					Detail: fmt.Sprintf("%q is not a known %s %q (known: %s)", tv.Str, u.Name, u.Tag, quoteList(tagsOf(u)))})
				break
			}
			vt = t
			if t != u.Default {
				skip = u.Tag // the tag is the union's, not the arm's
			}
			// For the Default arm the tag member (e.g. "type":"stdio") is
			// not part of the arm and stays in Unknown, so it round-trips
			// and rules can see it.
		}
	default:
		if v.Kind == jsonv.Object {
			vt = u.Guess(func(name string) bool { _, ok := v.Get(name); return ok })
		} else {
			vt = u.Guess(func(string) bool { return false })
		}
		if vt == nil {
			d.report(Problem{Kind: ProbUnknownVariant, Pointer: string(ptr), Def: u.Name,
				Detail: fmt.Sprintf("value matches no variant of %s", u.Name)})
		}
	}
	if vt == nil {
		d.setUnknown(v, rv, u)
		return
	}
	nv := reflect.New(vt).Elem()
	if vt.Kind() == reflect.Struct && !vt.Implements(optionalType) {
		if v.Kind != jsonv.Object {
			d.typeProblem(v, ptr, def, "object")
			d.setUnknown(v, rv, u)
			return
		}
		sp := planFor(vt).st
		if _, own := sp.byName[u.Tag]; own {
			skip = "" // the arm declares its discriminator as a member
		}
		d.decodeStruct(v, nv, sp, ptr, skip)
	} else {
		d.decode(v, nv, ptr, u.Name)
	}
	rv.Set(nv)
}

func (d *decoder) setUnknown(v *jsonv.Value, rv reflect.Value, u *domain.Union) {
	nv := reflect.New(u.Unknown).Elem()
	nv.Field(0).SetBytes(d.raw(v))
	rv.Set(nv)
}

func tagsOf(u *domain.Union) []string {
	var out []string
	for _, v := range u.Variants {
		if v.Tag != "" {
			out = append(out, v.Tag)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func article(noun string) string {
	switch noun {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + noun
	}
	return "a " + noun
}
