package codec_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/third_party/rapid"
)

// Generators of domain values for property tests. They are driven by
// reflection over the domain types and follow the wire conventions, so a
// generated value is one that a decoder can produce: present slices and
// maps are non-nil, an Opt that is not set holds its zero value, unknown
// members have names no type declares ("x_…"), and every union arm is
// reachable, the Unknown arm included (with raw JSON that decodes back to
// it).

var (
	rawType     = reflect.TypeFor[json.RawMessage]()
	membersType = reflect.TypeFor[domain.Members]()
	optType     = reflect.TypeFor[domain.Optional]()
	enumType    = reflect.TypeFor[domain.Enum]()
)

// valueOf returns a generator of values of type t.
func valueOf(t reflect.Type) *rapid.Generator[reflect.Value] {
	return rapid.Custom(func(rt *rapid.T) reflect.Value {
		v := reflect.New(t).Elem()
		fill(rt, v, 0, "v")
		return v
	})
}

// fill sets v (settable) to a generated value. depth bounds collection
// sizes in deep values; label names the draw for rapid's output.
func fill(rt *rapid.T, v reflect.Value, depth int, label string) {
	t := v.Type()
	switch {
	case t == rawType:
		v.SetBytes(drawJSON(rt, depth, label))
	case domain.IsVerbatim(t):
		v.Field(0).SetBytes(drawVerbatim(rt, t, label))
	case t.Kind() == reflect.Struct && t.Implements(optType):
		// Absent, null or set; an Opt that is not set holds zero, as
		// decoding leaves it.
		state := domain.Presence(rapid.IntRange(0, 2).Draw(rt, label+".state"))
		v.Field(1).SetUint(uint64(state))
		if state == domain.Present {
			fill(rt, v.Field(0), depth+1, label)
		}
	case t.Kind() == reflect.Interface:
		u, ok := domain.UnionOf(t)
		if !ok {
			panic("no union for " + t.String())
		}
		fillUnion(rt, v, u, depth, label)
	case t.Kind() == reflect.Struct:
		fillStruct(rt, v, depth, label, false)
	case t.Kind() == reflect.Slice:
		n := rapid.IntRange(0, maxLen(depth)).Draw(rt, label+".len")
		s := reflect.MakeSlice(t, n, n)
		for i := 0; i < n; i++ {
			fill(rt, s.Index(i), depth+1, label+"["+strconv.Itoa(i)+"]")
		}
		v.Set(s)
	case t.Kind() == reflect.Map:
		n := rapid.IntRange(0, maxLen(depth)).Draw(rt, label+".len")
		m := reflect.MakeMapWithSize(t, n)
		for i := 0; i < n; i++ {
			k := reflect.New(t.Key()).Elem()
			k.SetString(rapid.String().Draw(rt, label+".key"))
			e := reflect.New(t.Elem()).Elem()
			fill(rt, e, depth+1, label+"[]")
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case t.Kind() == reflect.String:
		v.SetString(drawString(rt, t, label))
	case t.Kind() == reflect.Bool:
		v.SetBool(rapid.Bool().Draw(rt, label))
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		bits := t.Bits()
		lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
		v.SetInt(rapid.Int64Range(lo, hi).Draw(rt, label))
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		hi := uint64(1)<<t.Bits() - 1
		if t.Bits() == 64 {
			hi = ^uint64(0)
		}
		v.SetUint(rapid.Uint64Range(0, hi).Draw(rt, label))
	case t.Kind() == reflect.Float64:
		v.SetFloat(rapid.Float64().Draw(rt, label))
	default:
		panic("no generator for " + t.String())
	}
}

func maxLen(depth int) int {
	if depth > 4 {
		return 1
	}
	return 3
}

// fillStruct fills an object type. The arm of an inline union keeps no
// unknown members of its own (they belong to the enclosing object).
func fillStruct(rt *rapid.T, v reflect.Value, depth int, label string, inlineArm bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fv := v.Field(i)
		switch {
		case f.Type == membersType:
			if !inlineArm {
				fv.Set(reflect.ValueOf(drawMembers(rt, depth, label+".Unknown")))
			}
		case domain.IsInline(f):
			u, _ := domain.UnionOf(f.Type)
			fillInline(rt, fv, u, depth, label+"."+f.Name)
		default:
			fill(rt, fv, depth+1, label+"."+f.Name)
		}
	}
}

// drawMembers draws the undeclared members of an object: nil or a few
// x_-named members with any JSON.
func drawMembers(rt *rapid.T, depth int, label string) domain.Members {
	n := rapid.IntRange(0, 2).Draw(rt, label+".len")
	if n == 0 {
		return nil
	}
	ms := make(domain.Members, n)
	for i := range ms {
		ms[i] = domain.Member{
			Name:  "x_" + strconv.Itoa(i) + rapid.StringMatching(`[a-zA-Z0-9_.-]{0,8}`).Draw(rt, label+".name"),
			Value: drawJSON(rt, depth+1, label+".value"),
		}
		if len(ms[i].Value) == 0 {
			ms[i].Value = json.RawMessage("null")
		}
	}
	return ms
}

// arms lists a union's arm types once each (McpServerStdio is both a
// tagged variant and the Default).
func arms(u *domain.Union) []reflect.Type {
	var out []reflect.Type
	seen := map[reflect.Type]bool{}
	add := func(t reflect.Type) {
		if t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, v := range u.Variants {
		add(v.Type)
	}
	add(u.Default)
	return out
}

func fillUnion(rt *rapid.T, v reflect.Value, u *domain.Union, depth int, label string) {
	choices := append(arms(u), u.Unknown)
	t := rapid.SampledFrom(choices).Draw(rt, label+".arm")
	arm := reflect.New(t).Elem()
	switch {
	case t == u.Unknown:
		arm.Field(0).SetBytes(unknownArmJSON(rt, u, depth, label))
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && hasMember(t.Elem(), "group"):
		// A grouped list is recognised by its first element; an empty one
		// reads back as the flat list.
		n := rapid.IntRange(1, maxLen(depth)).Draw(rt, label+".len")
		s := reflect.MakeSlice(t, n, n)
		for i := 0; i < n; i++ {
			fill(rt, s.Index(i), depth+1, label+"[]")
		}
		arm.Set(s)
	default:
		fill(rt, arm, depth, label)
	}
	v.Set(arm)
}

// unknownArmJSON is raw JSON that a decoder reads as u's Unknown arm.
func unknownArmJSON(rt *rapid.T, u *domain.Union, depth int, label string) json.RawMessage {
	extra := ""
	if rapid.Bool().Draw(rt, label+".extra") {
		extra = `,"x_data":` + string(nonEmptyJSON(rt, depth+1, label+".data"))
	}
	switch {
	case u.Tag != "":
		tag := "_" + rapid.StringMatching(`[a-z]{1,8}`).Draw(rt, label+".tag")
		return json.RawMessage(fmt.Sprintf(`{%q:%q%s}`, u.Tag, tag, extra))
	case u.Variants[0].Type.Kind() == reflect.Slice:
		return json.RawMessage(`{"x_notAnArray":true` + extra + `}`)
	}
	return json.RawMessage(`{"x_shapeless":1` + extra + `}`)
}

func hasMember(t reflect.Type, name string) bool {
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			return true
		}
	}
	return false
}

// fillInline fills an inline union field: an arm, the Unknown arm (which
// keeps only the discriminator's value), or nothing.
func fillInline(rt *rapid.T, v reflect.Value, u *domain.Union, depth int, label string) {
	choices := arms(u)
	if u.Tag != "" {
		choices = append(choices, u.Unknown)
	}
	choices = append(choices, nil)
	t := rapid.SampledFrom(choices).Draw(rt, label+".arm")
	switch {
	case t == nil:
		if u.Default != nil {
			// An absent discriminator reads back as the Default arm, so
			// "no arm" cannot be written.
			t = u.Default
		} else {
			return
		}
	case t == u.Unknown:
		arm := reflect.New(t).Elem()
		tag := "_" + rapid.StringMatching(`[a-z]{1,8}`).Draw(rt, label+".tag")
		arm.Field(0).SetBytes(jsonString(tag))
		v.Set(arm)
		return
	}
	arm := reflect.New(t).Elem()
	fillStruct(rt, arm, depth+1, label, true)
	v.Set(arm)
}

func drawString(rt *rapid.T, t reflect.Type, label string) string {
	if t.Implements(enumType) {
		values, _ := reflect.Zero(t).Interface().(domain.Enum).EnumValues()
		// Mostly listed values; sometimes an extension value, which the
		// codec reports but keeps.
		if rapid.IntRange(0, 9).Draw(rt, label+".custom") > 0 {
			return rapid.SampledFrom(values).Draw(rt, label)
		}
		return "_" + rapid.StringMatching(`[a-z_]{1,10}`).Draw(rt, label)
	}
	return rapid.String().Draw(rt, label)
}

// drawVerbatim draws JSON for a verbatim type: an id for RequestID, a form
// value for ElicitationContentValue, anything for the Unknown arms.
func drawVerbatim(rt *rapid.T, t reflect.Type, label string) json.RawMessage {
	switch t {
	case reflect.TypeFor[domain.RequestID]():
		return rapid.SampledFrom([]json.RawMessage{
			json.RawMessage(strconv.FormatInt(rapid.Int64().Draw(rt, label+".n"), 10)),
			jsonString(rapid.String().Draw(rt, label+".s")),
			json.RawMessage("null"),
		}).Draw(rt, label)
	case reflect.TypeFor[domain.ElicitationContentValue]():
		return rapid.SampledFrom([]json.RawMessage{
			jsonString(rapid.String().Draw(rt, label+".s")),
			json.RawMessage(strconv.FormatInt(rapid.Int64().Draw(rt, label+".n"), 10)),
			json.RawMessage(strconv.FormatFloat(rapid.Float64().Draw(rt, label+".f"), 'g', -1, 64)),
			json.RawMessage(strconv.FormatBool(rapid.Bool().Draw(rt, label+".b"))),
			json.RawMessage(`["` + rapid.StringMatching(`[a-z]{0,5}`).Draw(rt, label+".a") + `","b"]`),
		}).Draw(rt, label)
	}
	return nonEmptyJSON(rt, 0, label)
}

// drawJSON draws nil (absent) or a JSON text, including the spellings a
// lossless codec must keep: 1.0, -0, 1e2, big integers, escapes and
// repeated member names.
func drawJSON(rt *rapid.T, depth int, label string) json.RawMessage {
	if rapid.IntRange(0, 3).Draw(rt, label+".absent") == 0 {
		return nil
	}
	return nonEmptyJSON(rt, depth, label)
}

func nonEmptyJSON(rt *rapid.T, depth int, label string) json.RawMessage {
	return json.RawMessage(anyJSON(rt, depth, label))
}

var exactNumbers = []string{"0", "-0", "1.0", "1e2", "1E-7", "0.1", "-12.500", "18446744073709551615", "123456789012345678901234567890", "3.141592653589793238462643383279"}

func anyJSON(rt *rapid.T, depth int, label string) string {
	kinds := 7
	if depth > 3 {
		kinds = 5 // scalars only
	}
	switch rapid.IntRange(0, kinds-1).Draw(rt, label+".kind") {
	case 0:
		return "null"
	case 1:
		return strconv.FormatBool(rapid.Bool().Draw(rt, label+".bool"))
	case 2:
		return rapid.SampledFrom(exactNumbers).Draw(rt, label+".num")
	case 3:
		return strconv.FormatInt(rapid.Int64().Draw(rt, label+".int"), 10)
	case 4:
		s := rapid.SampledFrom([]string{"", "plain", `q"uote`, "back\\slash", "tab\tnew\nline", "é漢字🙂", "\u2028", "\x01"}).Draw(rt, label+".str")
		if rapid.Bool().Draw(rt, label+".escape") {
			return `"\u00e9\/x\ud83d\ude42"` // escapes the codec must not rewrite
		}
		return string(jsonString(s))
	case 5:
		n := rapid.IntRange(0, 3).Draw(rt, label+".len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = anyJSON(rt, depth+1, label+"[]")
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 3).Draw(rt, label+".len")
		parts := make([]string, n)
		for i := range parts {
			key := rapid.SampledFrom([]string{"a", "b", "_meta", "Type", "x/y~z", "a"}).Draw(rt, label+".key")
			parts[i] = string(jsonString(key)) + ":" + anyJSON(rt, depth+1, label+"."+key)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestGeneratorsReachEveryArm checks that the generators produce every
// arm of every union, Unknown included, so the properties cover them all.
func TestGeneratorsReachEveryArm(t *testing.T) {
	for _, u := range domain.Unions {
		gen := valueOf(u.Interface)
		seen := map[reflect.Type]bool{}
		for seed := 0; seed < 300; seed++ {
			if v := gen.Example(seed); !v.IsNil() {
				seen[v.Elem().Type()] = true
			}
		}
		for _, arm := range append(arms(u), u.Unknown) {
			if !seen[arm] {
				t.Errorf("%s: the generator never produced %v", u.Name, arm)
			}
		}
	}
}
