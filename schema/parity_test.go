package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/acplint/acplint/internal/reference"
)

// TestParity compares every $def of the upstream stable schema with its
// counterpart in schema.json: property names, required members, the shape
// and nullability of each property, enum values, and the discriminator
// constants of union arms. Differences fail unless parity_exceptions.txt
// explains them; an exception that matches no difference fails too.
func TestParity(t *testing.T) {
	upstream := loadDefs(t, reference.StableSchema)
	ours := loadDefs(t, JSON)
	exceptions := loadExceptions(t)

	var names []string
	for name := range upstream {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	arms, enums := 0, 0
	for _, name := range names {
		a := map[string]bool{}
		armConsts(upstream[name], a)
		arms += len(a)
		if _, _, ok := enumOf(upstream[name]); ok {
			enums++
		}
		for _, what := range compareDef(upstream[name], ours[name]) {
			key := name + ": " + what
			seen[key] = true
			if _, ok := exceptions[key]; !ok {
				t.Errorf("$defs/%s", key)
			}
		}
	}
	// Guard against readers that silently find nothing to compare.
	if arms == 0 || enums == 0 {
		t.Errorf("read %d union arm constants and %d enums upstream; the schema readers are broken", arms, enums)
	}
	t.Logf("compared %d $defs, %d union arm constants, %d enums", len(names), arms, enums)
	for key, line := range exceptions {
		if !seen[key] {
			t.Errorf("parity_exceptions.txt:%d: stale exception, no such difference: %s", line, key)
		}
	}
}

type object = map[string]any

func loadDefs(t *testing.T, b []byte) map[string]object {
	t.Helper()
	var doc struct {
		Defs map[string]object `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Defs
}

// loadExceptions reads "DefName: what differs — reason" lines; blank lines
// and lines starting with # are ignored. The result maps "DefName: what
// differs" to its line number.
func loadExceptions(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(exceptionsFile))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, ok := strings.Cut(line, " — ")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Errorf("parity_exceptions.txt:%d: want \"DefName: what differs — reason\"", n)
			continue
		}
		if _, dup := out[key]; dup {
			t.Errorf("parity_exceptions.txt:%d: duplicate exception %s", n, key)
		}
		out[key] = n
	}
	return out
}

// compareDef lists the differences between an upstream $def and ours.
func compareDef(up, ours object) []string {
	if ours == nil {
		return []string{"upstream defines it, acplint does not"}
	}
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	upProps, ourProps := members(up["properties"]), members(ours["properties"])
	for _, p := range sortedKeys(upProps) {
		if _, ok := ourProps[p]; !ok {
			add("upstream declares %q, acplint does not", p)
		}
	}
	for _, p := range sortedKeys(ourProps) {
		if _, ok := upProps[p]; !ok {
			add("acplint declares %q, upstream does not", p)
		}
	}
	upReq, ourReq := set(up["required"]), set(ours["required"])
	for _, p := range sortedKeys(upReq) {
		if !ourReq[p] {
			add("upstream requires %q, acplint does not", p)
		}
	}
	for _, p := range sortedKeys(ourReq) {
		if !upReq[p] {
			add("acplint requires %q, upstream does not", p)
		}
	}
	for _, p := range sortedKeys(upProps) {
		o, ok := ourProps[p]
		if !ok {
			continue
		}
		us, un := shape(upProps[p])
		os, on := shape(o)
		if us != os {
			add("%q is %s upstream, %s in acplint", p, us, os)
		}
		if un != on {
			add("%q may be null %s", p, map[bool]string{true: "upstream, not in acplint", false: "in acplint, not upstream"}[un])
		}
	}

	upEnum, upOpen, upIsEnum := enumOf(up)
	ourEnum, ourOpen, ourIsEnum := enumOf(ours)
	if upIsEnum || ourIsEnum {
		for _, v := range sortedKeys(upEnum) {
			if !ourEnum[v] {
				add("upstream enum value %s is missing in acplint", v)
			}
		}
		for _, v := range sortedKeys(ourEnum) {
			if !upEnum[v] {
				add("acplint enum value %s is not upstream", v)
			}
		}
		if upOpen != ourOpen {
			add("the enum is %s upstream, %s in acplint", openness(upOpen), openness(ourOpen))
		}
	}

	upArms, ourArms := map[string]bool{}, map[string]bool{}
	armConsts(up, upArms)
	armConsts(ours, ourArms)
	for _, a := range sortedKeys(upArms) {
		if !ourArms[a] {
			add("upstream union arm %s is missing in acplint", a)
		}
	}
	for _, a := range sortedKeys(ourArms) {
		if !upArms[a] {
			add("acplint union arm %s is not upstream", a)
		}
	}

	// Scalars and untagged unions: compare the shape of the whole $def.
	if up["properties"] == nil && !upIsEnum && len(upArms) == 0 {
		us, un := shape(up)
		os, on := shape(ours)
		if us != os || un != on {
			add("is %s upstream, %s in acplint", describe(us, un), describe(os, on))
		}
	}
	return diffs
}

func openness(open bool) string {
	if open {
		return "open"
	}
	return "closed"
}

func describe(sig string, null bool) string {
	if null {
		return sig + " or null"
	}
	return sig
}

func members(v any) map[string]any {
	m, _ := v.(object)
	return m
}

func set(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func literal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// shape summarises what a schema accepts, ignoring null, which it reports
// apart: "string", "integer/uint32", "ref:SessionId", "array<…>",
// "map<…>", "object", "any", or "anyOf(…|…)".
func shape(v any) (sig string, null bool) {
	s, ok := v.(object)
	if !ok {
		return "any", false // true, or a schema we cannot read
	}
	if ref, ok := s["$ref"].(string); ok {
		return "ref:" + strings.TrimPrefix(ref, "#/$defs/"), false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		arms, ok := s[k].([]any)
		if !ok || s["type"] != nil {
			continue
		}
		var sigs []string
		for _, a := range arms {
			if m, ok := a.(object); ok && m["type"] == "null" {
				null = true
				continue
			}
			as, an := shape(a)
			null = null || an
			sigs = append(sigs, as)
		}
		if len(sigs) == 1 {
			return sigs[0], null
		}
		sort.Strings(sigs)
		return "anyOf(" + strings.Join(sigs, "|") + ")", null
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 && s["type"] == nil {
		return shape(all[0])
	}
	var base string
	switch ty := s["type"].(type) {
	case string:
		base = ty
	case []any:
		for _, x := range ty {
			if x == "null" {
				null = true
			} else if str, ok := x.(string); ok {
				base = str
			}
		}
	default:
		return "any", false
	}
	switch base {
	case "array":
		item, _ := shape(s["items"])
		return "array<" + item + ">", null
	case "object":
		if ap, ok := s["additionalProperties"].(object); ok {
			item, _ := shape(ap)
			return "map<" + item + ">", null
		}
		return "object", null
	case "integer", "number":
		if f, ok := s["format"].(string); ok {
			return base + "/" + f, null
		}
	}
	return base, null
}

// enumOf reads an enum $def: an "enum" list, or a oneOf/anyOf whose arms
// are consts, enum lists or (for an open enum) a bare type. Values are
// JSON literals.
func enumOf(s object) (values map[string]bool, open, ok bool) {
	values = map[string]bool{}
	if list, has := s["enum"].([]any); has {
		for _, v := range list {
			values[literal(v)] = true
		}
		return values, false, true
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		arms, has := s[k].([]any)
		if !has {
			continue
		}
		for _, a := range arms {
			m, _ := a.(object)
			if m == nil || m["properties"] != nil || m["$ref"] != nil || m["allOf"] != nil {
				return nil, false, false
			}
			switch {
			case m["const"] != nil:
				values[literal(m["const"])] = true
			case m["enum"] != nil:
				for _, v := range m["enum"].([]any) {
					values[literal(v)] = true
				}
			default:
				open = true
			}
		}
	}
	if len(values) == 0 {
		return nil, false, false
	}
	return values, open, true
}

// armConsts collects the discriminator constants of a union's arms as
// member=value, looking through nested oneOf/anyOf/allOf but not into
// references, "not" or the $def's own properties.
func armConsts(s object, out map[string]bool) {
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		arms, _ := s[k].([]any)
		for _, a := range arms {
			arm, ok := a.(object)
			if !ok {
				continue
			}
			req := set(arm["required"])
			for name, p := range members(arm["properties"]) {
				if c, ok := members(p)["const"]; ok && req[name] {
					out[name+"="+literal(c)] = true
				}
			}
			armConsts(arm, out)
		}
	}
}
